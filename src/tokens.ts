/**
 * What the CIBench plugin shares with the plugins that extend its panel
 * (the studies plugin, src/study/plugin.ts).
 */
import { Token } from '@lumino/coreutils';

import type { CIBenchApi } from './api';
import type { CIBenchModel } from './model';
import type { AttemptController } from './notebook/controller';
import type { CIBenchPanel } from './panel/panel';

export interface ICIBenchLab {
  api: CIBenchApi;
  model: CIBenchModel;
  controller: AttemptController;
  panel: CIBenchPanel;
  /** Show the panel and put the focus inside it. */
  openPanel(): void;
}

export const ICIBenchLab = new Token<ICIBenchLab>(
  'cibench-lab:lab',
  'The CIBench panel, its model and its attempt controller.'
);
