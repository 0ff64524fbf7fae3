/**
 * The consent form of a study: the organiser's text, the participant code
 * (on a shared machine), the questionnaire, and the acceptance. Every field
 * has a label; an error the server gives for a field is shown under it
 * (`aria-invalid`, `aria-describedby`) and the first such field gets the focus.
 */
import { h } from '../panel/dom';
import type { IConsentRequest, IQuestion, IStudyView } from './api';
import { paragraphs } from './words';
import { trans } from '../i18n';

let forms = 0;

/** What the form sends when it is submitted. */
export type ConsentSubmit = (body: IConsentRequest) => void;

/** The consent form for `view`, with `errors` (by field: `code`, `accept`, `answers.NAME`) shown. */
export function consentForm(
  view: IStudyView,
  errors: { [field: string]: string },
  onSubmit: ConsentSubmit
): HTMLFormElement {
  const prefix = `cibench-consent-${++forms}`;
  const title = h('h4', {
    className: 'jp-CIBench-consentTitle',
    text: trans.__('Consent'),
    attrs: { id: `${prefix}-title` }
  });
  const form = h(
    'form',
    {
      className: 'jp-CIBench-consent',
      attrs: { 'aria-labelledby': title.id, novalidate: '' }
    },
    title,
    consentText(view),
    view.participant_code && view.participant === null
      ? codeField(prefix, errors['code'])
      : null,
    ...view.questionnaire.map((q, i) =>
      questionField(q, `${prefix}-q${i}`, errors[`answers.${q.name}`])
    ),
    acceptField(prefix, errors['accept']),
    h('button', {
      className: 'jp-CIBench-button jp-CIBench-accept',
      text: trans.__('Accept and continue'),
      attrs: { type: 'submit' }
    })
  );
  form.addEventListener('submit', event => {
    event.preventDefault();
    onSubmit(formBody(form, view));
  });
  return form;
}

/** Put the focus on the first field with an error (or the form's first field). */
export function focusForm(form: HTMLFormElement): void {
  const target =
    form.querySelector<HTMLElement>('[aria-invalid="true"]') ??
    form.querySelector<HTMLElement>('input, select, textarea');
  target?.focus();
}

function consentText(view: IStudyView): HTMLElement {
  return h(
    'div',
    {
      className: 'jp-CIBench-consentText',
      attrs: {
        tabindex: '0',
        role: 'region',
        'aria-label': trans.__('Consent text')
      }
    },
    ...paragraphs(view.consent).map(text => h('p', { text }))
  );
}

function codeField(prefix: string, error?: string): HTMLElement {
  const input = h('input', {
    className: 'jp-CIBench-input jp-CIBench-code',
    attrs: {
      id: `${prefix}-code`,
      type: 'text',
      name: 'code',
      autocomplete: 'off',
      spellcheck: 'false',
      required: ''
    }
  });
  return field(
    input,
    trans.__('Your participant code'),
    error,
    trans.__('Given to you by the organiser')
  );
}

function questionField(q: IQuestion, id: string, error?: string): HTMLElement {
  const label = q.required ? trans.__('%1 (required)', q.label) : q.label;
  const attrs: { [name: string]: string } = { id, name: `answers.${q.name}` };
  if (q.required) {
    attrs['aria-required'] = 'true';
  }
  return field(questionControl(q, attrs), label, error);
}

/** A choice is a select, a number a number input, text a text input. */
function questionControl(
  q: IQuestion,
  attrs: { [name: string]: string }
): HTMLInputElement | HTMLSelectElement {
  const className = 'jp-CIBench-input';
  if (q.type === 'choice') {
    const none = h('option', {
      text: trans.__('Choose…'),
      attrs: { value: '' }
    });
    const options = q.choices.map(c =>
      h('option', { text: c, attrs: { value: c } })
    );
    return h('select', { className, attrs }, none, ...options);
  }
  if (q.type === 'text') {
    return h('input', { className, attrs: { ...attrs, type: 'text' } });
  }
  const bounds = {
    ...attrs,
    type: 'number',
    inputmode: 'decimal',
    step: 'any'
  };
  const input = h('input', { className, attrs: bounds });
  if (q.min !== null) {
    input.min = String(q.min);
  }
  if (q.max !== null) {
    input.max = String(q.max);
  }
  return input;
}

function acceptField(prefix: string, error?: string): HTMLElement {
  const box = h('input', {
    className: 'jp-CIBench-acceptBox',
    attrs: { id: `${prefix}-accept`, type: 'checkbox', name: 'accept' }
  });
  const wrap = field(
    box,
    trans.__('I have read the text above and agree to take part'),
    error
  );
  wrap.classList.add('jp-CIBench-acceptField');
  return wrap;
}

/** A labelled control with its hint and its error line (which marks it invalid). */
function field(
  control: HTMLInputElement | HTMLSelectElement,
  label: string,
  error?: string,
  hint?: string
): HTMLElement {
  const hintNode = hint
    ? note('jp-CIBench-hint', hint, `${control.id}-hint`)
    : null;
  const errorNode = error
    ? note('jp-CIBench-fieldError', error, `${control.id}-error`)
    : null;
  const describedBy = [hintNode, errorNode].filter(n => n).map(n => n!.id);
  if (describedBy.length) {
    control.setAttribute('aria-describedby', describedBy.join(' '));
  }
  if (errorNode) {
    control.setAttribute('aria-invalid', 'true');
  }
  const labelNode = h('label', { text: label, attrs: { for: control.id } });
  return h(
    'div',
    { className: 'jp-CIBench-field' },
    labelNode,
    control,
    hintNode,
    errorNode
  );
}

function note(className: string, text: string, id: string): HTMLElement {
  return h('span', { className, text, attrs: { id } });
}

/** The request the filled form makes: what is empty is left out (the server says what is required). */
export function formBody(
  form: HTMLFormElement,
  view: IStudyView
): IConsentRequest {
  const value = (name: string) =>
    form.querySelector<HTMLInputElement | HTMLSelectElement>(
      `[name="${name}"]`
    );
  const answers: { [name: string]: unknown } = {};
  for (const q of view.questionnaire) {
    const control = value(`answers.${q.name}`);
    const raw = control?.value.trim() ?? '';
    if (!raw) {
      continue;
    }
    const n = Number(raw);
    answers[q.name] = q.type === 'number' && isFinite(n) ? n : raw;
  }
  const body: IConsentRequest = {
    accept: (value('accept') as HTMLInputElement | null)?.checked ?? false,
    answers
  };
  const code = value('code')?.value.trim();
  if (code) {
    body.code = code;
  }
  return body;
}

/** What is filled in, by field name (kept when the form is drawn again with its errors). */
export function formValues(
  form: HTMLFormElement
): Map<string, string | boolean> {
  const values = new Map<string, string | boolean>();
  form
    .querySelectorAll<HTMLInputElement | HTMLSelectElement>('[name]')
    .forEach(c =>
      values.set(
        c.name,
        c instanceof HTMLInputElement && c.type === 'checkbox'
          ? c.checked
          : c.value
      )
    );
  return values;
}

/** Fill the form with `values` (from `formValues`). */
export function fillForm(
  form: HTMLFormElement,
  values: Map<string, string | boolean>
): void {
  form
    .querySelectorAll<HTMLInputElement | HTMLSelectElement>('[name]')
    .forEach(c => {
      const value = values.get(c.name);
      if (typeof value === 'boolean' && c instanceof HTMLInputElement) {
        c.checked = value;
      } else if (typeof value === 'string') {
        c.value = value;
      }
    });
}
