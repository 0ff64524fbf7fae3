// In-page probes of bench/lab.py (added as an init script, so every page load has them).
// All times are performance.now() milliseconds of the page. Reads only the lab's own objects
// (window.jupyterapp: the server runs with LabApp.expose_app_in_browser), the kernel
// connection's messages, and the CIBench classes .jp-CIBench-start, .jp-CIBench-answer
// [data-step], .jp-CIBench-badge(-pass|-miss) [data-state].
(() => {
  if (window.cibenchBench) {
    return;
  }
  try {
    performance.setResourceTimingBufferSize(100000);
  } catch (e) {
    // older browsers: the default buffer (250 entries) is enough for one start
  }
  const B = {};
  window.cibenchBench = B;
  const GRADED = ['jp-CIBench-badge-pass', 'jp-CIBench-badge-miss'];
  const BIND = /\/cibench-lab\/api\/attempts\/[^/?]+\/kernel(\?|$)/;
  const START = /\/cibench-lab\/api\/attempts(\?|$)/; // the first after Start is its POST
  // a started attempt whose answer cell never becomes active: ready as soon as the rest is
  const NEVER_ACTIVE_MS = 3000;

  const app = () => window.jupyterapp;
  B.appReady = () => !!(app() && app().shell);

  function panelOf(node) {
    const el = node && node.closest('.jp-NotebookPanel');
    if (!el || !app()) {
      return null;
    }
    for (const w of app().shell.widgets('main')) {
      if (w.id === el.id) {
        return w;
      }
    }
    return null;
  }
  B.panelOf = panelOf;

  function kernelOf(panel) {
    const session = panel && panel.sessionContext.session;
    return session ? session.kernel : null;
  }

  function kernelIdle(panel) {
    const k = kernelOf(panel);
    return !!k && k.status === 'idle' && k.connectionStatus === 'connected';
  }

  /** When the attempt's kernel binding (POST attempts/{id}/kernel) answered, after `since`. */
  function boundAt(since) {
    const e = performance
      .getEntriesByType('resource')
      .find(r => r.startTime >= since && BIND.test(r.name));
    return e ? e.responseEnd : null;
  }
  /** When the Start request (POST attempts) answered, after `since`. */
  function createdAt(since) {
    const e = performance
      .getEntriesByType('resource')
      .find(r => r.startTime >= since && START.test(r.name));
    return e ? e.responseEnd : null;
  }

  function watch(check) {
    const mo = new MutationObserver(check);
    mo.observe(document.body, {
      subtree: true,
      childList: true,
      attributes: true,
      attributeFilter: ['class', 'data-state']
    });
    const tick = setInterval(check, 5);
    document.addEventListener('focusin', check, true);
    return () => {
      mo.disconnect();
      clearInterval(tick);
      document.removeEventListener('focusin', check, true);
    };
  }

  // ---- Start pressed -> answer cell focused, kernel bound and idle -----------------------
  B.armStart = () => {
    const before = new Set(
      [...document.querySelectorAll('.jp-NotebookPanel')].map(n => n.id)
    );
    const s = { t0: null, present: null, bound: null, base: null };
    s.lastNotIdle = null;
    s.ready = null;
    s.how = null;
    B.start = s;
    const onClick = e => {
      const t = e.target;
      if (s.t0 === null && t.closest && t.closest('.jp-CIBench-start')) {
        s.t0 = performance.now();
      }
    };
    document.addEventListener('click', onClick, true);
    // what kept the kernel busy: the request type of each busy status (for the JSON)
    s.busy = [];
    let heard = null;
    const onBusy = (_, msg) => {
      const state = msg.content && msg.content.execution_state;
      if (state === 'busy' && s.busy.length < 50) {
        const parent = (msg.parent_header || {}).msg_type || '?';
        s.busy.push([performance.now(), parent]);
      }
    };
    const listen = kernel => {
      if (kernel && kernel !== heard) {
        heard?.iopubMessage.disconnect(onBusy);
        heard = kernel;
        kernel.iopubMessage.connect(onBusy);
      }
    };
    let stop = () => undefined;
    const finish = (how, at) => {
      s.how = how;
      s.ready = at;
      s.created = createdAt(s.t0);
      stop();
      heard?.iopubMessage.disconnect(onBusy);
      document.removeEventListener('click', onClick, true);
    };
    const check = () => {
      if (s.t0 === null || s.ready !== null) {
        return;
      }
      const now = performance.now();
      const node = [...document.querySelectorAll('.jp-NotebookPanel')].find(
        n => !before.has(n.id)
      );
      const answer =
        node && node.querySelector('.jp-CIBench-answer[data-step="0"]');
      if (!answer || !answer.querySelector('.cm-editor')) {
        return;
      }
      s.panelId = node.id;
      s.present = s.present ?? now;
      s.bound = s.bound ?? boundAt(s.t0);
      const panel = panelOf(node);
      listen(kernelOf(panel));
      const idle = kernelIdle(panel);
      if (!idle) {
        // (the JSON shows whether the kernel or the binding came last, and why)
        const k = kernelOf(panel);
        s.lastNotIdle = now;
        s.notIdleWas = k ? `${k.status}/${k.connectionStatus}` : 'no kernel';
      }
      if (s.bound === null || !idle) {
        s.base = null;
        return;
      }
      s.base = s.base ?? now;
      const focus = document.activeElement;
      const focused =
        answer.contains(focus) && !!(focus && focus.closest('.cm-editor'));
      if (focused || answer.classList.contains('jp-mod-active')) {
        finish(focused ? 'focused' : 'active', now);
      } else if (now - s.base > NEVER_ACTIVE_MS) {
        finish('present', s.base);
      }
    };
    stop = watch(check);
  };

  /** Shut down the started attempt's kernel and close its notebook (no dialog). */
  B.closeStarted = async () => {
    const node = B.start && document.getElementById(B.start.panelId);
    const panel = panelOf(node);
    if (!panel) {
      return false;
    }
    await panel.context.save().catch(() => undefined);
    await panel.sessionContext.shutdown();
    panel.dispose();
    return true;
  };

  // ---- execution finished -> final badge, and a plain cell's round trip ------------------
  function cellAt(panel, selector) {
    const node = panel.node.querySelector(selector);
    const cell = node && panel.content.widgets.find(w => w.node === node);
    if (!cell) {
      throw new Error(`no cell ${selector} in the current notebook`);
    }
    return cell;
  }

  function finalBadge(node) {
    const b = node.querySelector('.jp-CIBench-badge');
    if (!b) {
      return [null, false];
    }
    const graded = GRADED.some(c => b.classList.contains(c));
    const state = b.dataset.state;
    return [b, graded && (!state || state === 'final')];
  }

  /** Arm the measurement of the next run of the open step's answer cell (or the plain cell). */
  B.armRun = (step, plain) => {
    const panel = app().shell.currentWidget;
    const selector = plain
      ? '[data-cibench-bench="plain"]'
      : `.jp-CIBench-answer[data-step="${step}"]`;
    const cell = cellAt(panel, selector);
    const kernel = kernelOf(panel);
    const r = { send: null, reply: null, idle: null, badge: null, done: false };
    B.run = r;
    const prev = finalBadge(cell.node)[0];
    let changed = false; // the badge left its previous (final) look since arming
    let stop = () => undefined;
    const done = () => {
      if (r.reply !== null && r.idle !== null && (plain || r.badge !== null)) {
        r.done = true;
        stop();
      }
    };
    const onMessage = (_, { msg, direction }) => {
      const now = performance.now();
      const type = msg.header.msg_type;
      if (direction === 'send') {
        const meta = msg.metadata || {};
        const ours = !meta.cellId || meta.cellId === cell.model.id;
        if (r.send === null && type === 'execute_request' && ours) {
          r.send = now;
          r.msgId = msg.header.msg_id;
        }
        return;
      }
      if (!r.msgId || (msg.parent_header || {}).msg_id !== r.msgId) {
        return;
      }
      if (type === 'execute_reply') {
        r.reply = now;
        r.status = msg.content.status;
      } else if (type === 'status' && msg.content.execution_state === 'idle') {
        r.idle = now;
      }
      done();
    };
    const onMutation = () => {
      const [b, final] = finalBadge(cell.node);
      if (!final) {
        changed = true;
        return;
      }
      if (r.badge === null && (b !== prev || changed)) {
        r.badge = performance.now();
        r.text = b.textContent;
        r.state = b.dataset.state || null;
        r.pass = b.classList.contains(GRADED[0]);
        done();
      }
    };
    kernel.anyMessage.connect(onMessage);
    const mo = new MutationObserver(onMutation);
    mo.observe(cell.node, {
      subtree: true,
      childList: true,
      attributes: true,
      attributeFilter: ['class', 'data-state']
    });
    stop = () => {
      kernel.anyMessage.disconnect(onMessage);
      mo.disconnect();
    };
    B.disarm = stop;
  };

  /** Mark the notebook's active cell as the plain (non-answer) cell the bench runs. */
  B.markPlain = () => {
    const panel = app().shell.currentWidget;
    const cell = panel.content.activeCell;
    if (!cell || cell.node.classList.contains('jp-CIBench-answer')) {
      throw new Error('the new plain cell is not the active cell');
    }
    panel.node
      .querySelectorAll('[data-cibench-bench="plain"]')
      .forEach(n => delete n.dataset.cibenchBench);
    cell.node.dataset.cibenchBench = 'plain';
  };

  /** The open attempt notebook is shown, its step's answer cell there, its kernel bound and idle. */
  B.stepReady = (step, since) => {
    const panel = app() && app().shell.currentWidget;
    const node = panel && panel.node;
    const ok =
      node &&
      node.classList.contains('jp-NotebookPanel') &&
      node.querySelector(`.jp-CIBench-answer[data-step="${step}"] .cm-editor`);
    return !!ok && boundAt(since) !== null && kernelIdle(panel);
  };

  B.save = async () => {
    const panel = app().shell.currentWidget;
    await panel.context.save();
  };
})();
