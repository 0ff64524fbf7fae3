/**
 * A shared study machine (a study with participant codes, docs/studies.md):
 * when a participant signs in or hands over, the main area keeps nothing of
 * anyone else's — every tab closes (a document saved first, when it can be)
 * but the launcher's and the signed-in participant's own attempt notebooks, and
 * the file browser goes back to the top (studies plugin).
 * A tab left open would show the next person someone else's notebook (an
 * organiser's finished attempt with its references) and, after a reload, the
 * lab would reopen it in front of them.
 */
import { JupyterFrontEnd } from '@jupyterlab/application';
import { IDocumentManager } from '@jupyterlab/docmanager';
import { Widget } from '@lumino/widgets';

/** Close every main-area tab but the launcher's and those of documents `keep` names. */
export async function closeTabsExcept(
  shell: JupyterFrontEnd.IShell,
  docManager: IDocumentManager,
  keep: (path: string) => boolean
): Promise<void> {
  const tabs = Array.from(shell.widgets('main'));
  await Promise.all(
    tabs.map(async widget => {
      if (isLauncher(widget)) {
        return;
      }
      const context = docManager.contextForWidget(widget);
      if (context && keep(context.path)) {
        return;
      }
      if (context?.model.dirty && !context.model.readOnly) {
        await context.save().catch(err => {
          console.warn(`cibench-lab: ${context.path} was not saved`, err);
        });
      }
      widget.dispose();
    })
  );
}

function isLauncher(widget: Widget): boolean {
  return !!widget.node.querySelector('.jp-Launcher');
}
