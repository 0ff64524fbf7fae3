"""Former paths kept while kernelspecs and installs of earlier versions name them (issue 28 removes them)."""
