// Build src/schema.ts (the API's TypeScript types) from docs/openapi.json.
//   node scripts/gen-api.mjs          write it
//   node scripts/gen-api.mjs --check  fail when the committed file differs
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

import openapiTS, { COMMENT_HEADER, astToString } from 'openapi-typescript';
import * as prettier from 'prettier';

const root = new URL('../', import.meta.url);
const source = new URL('docs/openapi.json', root);
const target = fileURLToPath(new URL('src/schema.ts', root));

const ast = await openapiTS(source, {
  exportType: true,
  defaultNonNullable: false
});
const options = await prettier.resolveConfig(target);
const text = await prettier.format(COMMENT_HEADER + astToString(ast), {
  ...options,
  filepath: target
});

if (process.argv.includes('--check')) {
  const committed = await readFile(target, 'utf8').catch(() => '');
  if (committed !== text) {
    console.error(
      'src/schema.ts is not what docs/openapi.json gives: run scripts/gen-api'
    );
    process.exit(1);
  }
  console.log('src/schema.ts matches docs/openapi.json');
} else {
  await writeFile(target, text);
  console.log(`wrote ${target}`);
}
