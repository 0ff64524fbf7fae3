import { fence, plotData, referenceMarkdown } from '../notebook/reference';
import { kernelNote } from '../notebook/revive';

describe('reference markdown', () => {
  it('fences code so no backtick run inside closes the fence', () => {
    expect(fence('x = 1\n', 'python')).toBe('```python\nx = 1\n```');
    expect(fence('s = """```"""')).toBe('````\ns = """```"""\n````');
  });

  it('holds the code, the output text and the plot', () => {
    const md = referenceMarkdown(1, {
      code: 'print(42)',
      thought: '',
      output: '42',
      image: null
    });
    expect(md.split('\n')[0]).toBe(
      "Reference for step 2: the task's code and output (read-only, never run)."
    );
    expect(md).toContain('```python\nprint(42)\n```');
    expect(md).toContain('Output:\n\n```\n42\n```');
    const plot = referenceMarkdown(0, {
      code: 'plt.plot([1])',
      thought: '',
      output: 'image/png (1234 bytes)',
      image: 'data:image/png;base64,iVBORw0KGgo='
    });
    expect(plot).not.toContain('image/png (1234 bytes)');
    expect(plot).toContain(
      '![The reference plot of step 1](attachment:reference.png)'
    );
  });

  it('reads a plot as bare base64 or a data URI', () => {
    expect(plotData('data:image/png;base64,AAA=')).toBe('AAA=');
    expect(plotData('AA\nA=')).toBe('AAA=');
    expect(plotData(null)).toBeNull();
  });
});

describe('kernel note', () => {
  it('says how long the kernel idled before the server stopped it', () => {
    expect(kernelNote('idle', 1800)).toBe(
      'Kernel stopped after 30 idle minutes — restored'
    );
    expect(kernelNote('idle', 60)).toBe(
      'Kernel stopped after 1 idle minute — restored'
    );
    expect(kernelNote('idle', 4)).toBe(
      'Kernel stopped after 4 idle seconds — restored'
    );
    expect(kernelNote('idle', undefined)).toBe(
      'Kernel stopped while idle — restored'
    );
    expect(kernelNote(null, 1800)).toBe('Kernel stopped — restored');
    expect(kernelNote('finished', 1800)).toBe(
      'Kernel stopped when the attempt finished — restored'
    );
  });
});
