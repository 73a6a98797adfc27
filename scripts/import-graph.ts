/**
 * Prints the import graph's cycles between the project's source files (type-only imports,
 * `require('./…')` and dynamic `import('./….js')` included), and exits 1 when there is one. A cycle means two modules depend on
 * each other, so neither can be read, tested or moved alone; the layer rules in eslint.config.mjs
 * keep the folders in one direction, this check keeps the files within them so too.
 *
 *   npm run check:imports            the cycles, as JSON (none: `{"files":N,"cycles":[]}`)
 *   npm run check:imports -- --folders   also the imports between top-level folders, with counts
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const ROOT = path.resolve(__dirname, '..', '..');
/** The product's source folders (tests and scripts may import anything and are not part of the graph). */
export const SOURCE_FOLDERS = ['app', 'api', 'cli', 'domain', 'indexer', 'jobs', 'lib', 'relay', 'search', 'storage', 'vision', 'web'];

function sourceFiles(): string[] {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) files.push(full);
    }
  };
  for (const folder of SOURCE_FOLDERS) if (fs.existsSync(path.join(ROOT, folder))) walk(path.join(ROOT, folder));
  return files;
}

function resolveImport(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  // `./x.js` in TypeScript source names `./x.ts` (as a dynamic import() must spell it).
  const base = path.resolve(path.dirname(from), specifier.replace(/\.js$/, ''));
  for (const candidate of [`${base}.ts`, path.join(base, 'index.ts')]) if (fs.existsSync(candidate)) return candidate;
  return undefined;
}

/** Every relative module a file imports: import/export declarations, require('…') and import('…') calls. */
export function importsOf(file: string): string[] {
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
  const found = new Set<string>();
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      const target = resolveImport(file, node.moduleSpecifier.text);
      if (target) found.add(target);
    } else if (
      ts.isCallExpression(node) &&
      ((ts.isIdentifier(node.expression) && node.expression.text === 'require') || node.expression.kind === ts.SyntaxKind.ImportKeyword) &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      const target = resolveImport(file, node.arguments[0].text);
      if (target) found.add(target);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return [...found];
}

/** Strongly connected components of more than one file (Tarjan), each a cycle to break. */
export function cycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const stack: string[] = [];
  const onStack = new Set<string>();
  const indexes = new Map<string, number>();
  const lows = new Map<string, number>();
  const found: string[][] = [];
  const connect = (node: string): void => {
    indexes.set(node, index);
    lows.set(node, index);
    index += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!indexes.has(next)) {
        connect(next);
        lows.set(node, Math.min(lows.get(node)!, lows.get(next)!));
      } else if (onStack.has(next)) lows.set(node, Math.min(lows.get(node)!, indexes.get(next)!));
    }
    if (lows.get(node) === indexes.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!indexes.has(node)) connect(node);
  return found;
}

function main(): void {
  const files = sourceFiles();
  const graph = new Map(files.map((file) => [file, importsOf(file)]));
  const relative = (file: string): string => path.relative(ROOT, file);
  const report: Record<string, unknown> = { files: files.length, cycles: cycles(graph).map((c) => c.map(relative)) };
  if (process.argv.includes('--folders')) {
    const edges: Record<string, number> = {};
    for (const [from, targets] of graph) {
      for (const to of targets) {
        const [a, b] = [relative(from).split(path.sep)[0], relative(to).split(path.sep)[0]];
        if (a !== b) edges[`${a} -> ${b}`] = (edges[`${a} -> ${b}`] ?? 0) + 1;
      }
    }
    report.folders = edges;
  }
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  if ((report.cycles as unknown[]).length) process.exitCode = 1;
}

if (require.main === module) main();
