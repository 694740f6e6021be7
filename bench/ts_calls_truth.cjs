// The truth for TypeScript CALLS (bench_truth_ts.py): every call and `new` in a project's own
// files, with what TypeScript's own type checker says it calls.
//
//   node ts_calls_truth.cjs <typescript package dir> <project root (its tsconfig.json)>
//
// Prints JSON: [{path, line, name, truth}], truth as bench_truth.py's jedi truth has it:
// [[path, line, name], ...] (declarations in the project's own .ts files), "external"
// (declared outside them: lib.d.ts, node_modules), "local" (a parameter or a variable that is not
// a function), or null (the checker finds no symbol).
"use strict";
const path = require("path");
const ts = require(process.argv[2]);
const root = path.resolve(process.argv[3]);

const host = { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => { throw new Error(ts.flattenDiagnosticMessageText(d.messageText, "\n")); } };
const config = ts.getParsedCommandLineOfConfigFile(path.join(root, "tsconfig.json"), {}, host);
const program = ts.createProgram(config.fileNames, config.options);
const checker = program.getTypeChecker();

function own(file) {
  return file.startsWith(root + path.sep) && !file.endsWith(".d.ts") && !file.includes(`${path.sep}node_modules${path.sep}`);
}

function line(node) {
  const sf = node.getSourceFile();
  return sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
}

// A declaration a call can land on, as memory-lsp's symbols name it: its name and first line.
function target(decl) {
  const file = decl.getSourceFile().fileName;
  if (!own(file)) return "external";
  const rel = path.relative(root, file).split(path.sep).join("/");
  if (ts.isParameter(decl) || ts.isBindingElement(decl)) return "local";
  if (ts.isVariableDeclaration(decl) || ts.isPropertyDeclaration(decl) || ts.isPropertyAssignment(decl)) {
    const init = decl.initializer;
    const fn = init && (ts.isArrowFunction(init) || ts.isFunctionExpression(init) || ts.isClassExpression(init));
    if (!fn || !decl.name || !ts.isIdentifier(decl.name) && !ts.isPrivateIdentifier(decl.name)) return "local";
    return [rel, line(decl), decl.name.text];
  }
  if (ts.isConstructorDeclaration(decl)) {
    const cls = decl.parent;
    return cls.name ? [rel, line(cls), cls.name.text] : null;
  }
  if (decl.name && (ts.isIdentifier(decl.name) || ts.isPrivateIdentifier(decl.name))) {
    return [rel, line(decl), decl.name.text];
  }
  return null;
}

function answer(nameNode) {
  let sym = checker.getSymbolAtLocation(nameNode);
  if (!sym) return null;
  if (sym.flags & ts.SymbolFlags.Alias) sym = checker.getAliasedSymbol(sym);
  const decls = sym.declarations || [];
  if (!decls.length) return null;
  const targets = [];
  let external = false, local = false;
  for (const d of decls) {
    const t = target(d);
    if (t === "external") external = true;
    else if (t === "local") local = true;
    else if (t) targets.push(t);
  }
  if (targets.length) return targets;
  return external ? "external" : local ? "local" : null;
}

const out = [];
for (const sf of program.getSourceFiles()) {
  if (!own(sf.fileName)) continue;
  const rel = path.relative(root, sf.fileName).split(path.sep).join("/");
  const visit = (node) => {
    if (ts.isCallExpression(node) || ts.isNewExpression(node)) {
      const callee = node.expression;
      const nameNode = ts.isPropertyAccessExpression(callee) ? callee.name : ts.isIdentifier(callee) ? callee : null;
      if (nameNode && !(ts.isCallExpression(node) && callee.kind === ts.SyntaxKind.ImportKeyword)) {
        const onSuper = ts.isPropertyAccessExpression(callee) && callee.expression.kind === ts.SyntaxKind.SuperKeyword;
        out.push({ path: rel, line: line(nameNode), name: nameNode.text, super: onSuper, truth: answer(nameNode) });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
}
process.stdout.write(JSON.stringify(out));
