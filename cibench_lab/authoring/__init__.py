"""Task authoring: building and verifying references, and a task from a teacher's solution notebook."""
