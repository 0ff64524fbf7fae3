/**
 * A tiny DOM builder: the panel is plain DOM inside Lumino widgets.
 */

export interface IAttrs {
  /** Space-separated classes. */
  className?: string;
  /** Text content (set before children are appended). */
  text?: string;
  /** Other attributes (`aria-*`, `type`, `for`, ...). */
  attrs?: { [name: string]: string };
  /** Click handler (buttons). */
  onClick?: (event: Event) => void;
}

export type Child = Node | string | null | undefined | false;

/** Create an element with classes, text, attributes and children. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: IAttrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (props.className) {
    el.className = props.className;
  }
  if (props.text !== undefined) {
    el.textContent = props.text;
  }
  for (const [name, value] of Object.entries(props.attrs ?? {})) {
    el.setAttribute(name, value);
  }
  if (props.onClick) {
    el.addEventListener('click', props.onClick);
  }
  append(el, children);
  return el;
}

/** Append children, skipping empty ones; strings become text nodes. */
export function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) {
      continue;
    }
    parent.appendChild(
      typeof child === 'string' ? document.createTextNode(child) : child
    );
  }
}

/** Replace an element's children. */
export function replaceChildren(
  parent: HTMLElement,
  ...children: Child[]
): void {
  while (parent.firstChild) {
    parent.removeChild(parent.firstChild);
  }
  append(parent, children);
}

/** An `<input>` showing `value` that hands each edit to `onInput`. */
export function input(
  props: IAttrs,
  value: string,
  onInput: (value: string) => void
): HTMLInputElement {
  const el = h('input', props);
  el.value = value;
  el.addEventListener('input', () => onInput(el.value));
  return el;
}

/** A real `<button type="button">`. */
export function button(
  label: string,
  className: string,
  onClick: () => void,
  title?: string
): HTMLButtonElement {
  return h('button', {
    className: `jp-CIBench-button ${className}`,
    text: label,
    attrs: title ? { type: 'button', title } : { type: 'button' },
    onClick: () => onClick()
  });
}

/** What identifies a focused element across re-renders: its step, tag and classes. */
function focusKey(el: Element): string {
  const step = el.closest('[data-step]')?.getAttribute('data-step') ?? '';
  return `${step}|${el.tagName}|${el.className}|${el.getAttribute('data-profile') ?? ''}`;
}

/**
 * Re-render `container` with `render`, giving the focus back to the element
 * that matches the one focused before (a keyboard user keeps their place).
 */
export function keepingFocus(container: HTMLElement, render: () => void): void {
  const active = document.activeElement;
  const key =
    active instanceof HTMLElement && container.contains(active)
      ? focusKey(active)
      : null;
  render();
  if (key === null) {
    return;
  }
  for (const el of Array.from(container.querySelectorAll<HTMLElement>('*'))) {
    if (focusKey(el) === key) {
      el.focus();
      return;
    }
  }
}

/** The `attr` of the row holding the focus inside `container`, if any. */
export function focusedIn(container: HTMLElement, attr: string): string | null {
  const active = document.activeElement;
  if (!(active instanceof HTMLElement) || !container.contains(active)) {
    return null;
  }
  return active.closest(`[${attr}]`)?.getAttribute(attr) ?? null;
}

/** Give the focus back to the (re-created) row with `attr` = `value`. */
export function refocus(
  container: HTMLElement,
  attr: string,
  value: string | null
): void {
  if (value === null) {
    return;
  }
  for (const row of Array.from(
    container.querySelectorAll<HTMLElement>(`[${attr}]`)
  )) {
    if (row.getAttribute(attr) === value) {
      const target =
        row.tagName === 'BUTTON'
          ? row
          : row.querySelector<HTMLElement>('button');
      target?.focus();
      return;
    }
  }
}
