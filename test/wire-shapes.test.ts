import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/** A shape a file declares: an object's field names, or the members of a set of string literals. */
interface Shape {
  file: string;
  name: string;
  kind: 'fields' | 'literals';
  members: string[];
}

/** Every TypeScript source file under a folder, tests left out. */
function sources(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name))
    .map((e) => path.join(e.parentPath, e.name));
}

const propertyName = (name: ts.PropertyName | undefined): string | undefined =>
  name && (ts.isIdentifier(name) || ts.isStringLiteral(name)) ? name.text : undefined;

/** The string literals of `'a' | 'b'`, `['a', 'b'] as const` or `z.enum(['a', 'b'])`; undefined for anything else. */
function literals(node: ts.Node): string[] | undefined {
  if (ts.isUnionTypeNode(node)) {
    const values = node.types.map((t) =>
      ts.isLiteralTypeNode(t) && ts.isStringLiteral(t.literal) ? t.literal.text : undefined,
    );
    return values.every((v) => v !== undefined) ? (values as string[]) : undefined;
  }
  if (ts.isAsExpression(node) || ts.isSatisfiesExpression(node)) return literals(node.expression);
  if (ts.isArrayLiteralExpression(node)) {
    const values = node.elements.map((e) => (ts.isStringLiteral(e) ? e.text : undefined));
    return values.length > 0 && values.every((v) => v !== undefined) ? (values as string[]) : undefined;
  }
  if (ts.isCallExpression(node) && /\benum$/.test(node.expression.getText()) && node.arguments[0])
    return literals(node.arguments[0]);
  return undefined;
}

/** The field names of `{ a: …; b: … }`, an interface, or `z.object({ a, b })` / `z.strictObject(…)`. */
function fields(node: ts.Node): string[] | undefined {
  if (ts.isTypeLiteralNode(node) || ts.isInterfaceDeclaration(node))
    return node.members.flatMap((m) => (ts.isPropertySignature(m) ? (propertyName(m.name) ?? []) : []));
  if (ts.isCallExpression(node) && /\b(object|strictObject|looseObject)$/.test(node.expression.getText())) {
    const arg = node.arguments[0];
    if (arg && ts.isObjectLiteralExpression(arg))
      return arg.properties.flatMap((p) =>
        ts.isPropertyAssignment(p) || ts.isShorthandPropertyAssignment(p) ? (propertyName(p.name) ?? []) : [],
      );
  }
  return undefined;
}

/** The shapes a file declares, named by their declaration, or by the field they type when written inline. */
function shapesOf(file: string): Shape[] {
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const shapes: Shape[] = [];
  const add = (name: string, node: ts.Node) => {
    const literal = literals(node);
    if (literal && literal.length >= 2) shapes.push({ file, name, kind: 'literals', members: literal.sort() });
    const field = fields(node);
    // Two fields (`{ id, name }`) are too common to say one shape copies another; three are not.
    if (field && field.length >= 3) shapes.push({ file, name, kind: 'fields', members: field.sort() });
  };
  const visit = (node: ts.Node, owner: string) => {
    let name = owner;
    if (ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node)) name = node.name.text;
    else if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name)) name = node.name.text;
    else if ((ts.isPropertySignature(node) || ts.isPropertyAssignment(node)) && propertyName(node.name))
      name = `${owner}.${propertyName(node.name)}`;
    if (ts.isInterfaceDeclaration(node)) add(name, node);
    else if (ts.isTypeAliasDeclaration(node)) add(name, node.type);
    else if (ts.isVariableDeclaration(node) && node.initializer) add(name, node.initializer);
    else if (ts.isPropertySignature(node) && node.type) add(name, node.type);
    else if (ts.isPropertyAssignment(node)) add(name, node.initializer);
    else if (ts.isParameter(node) && node.type) add(`${owner}(${node.name.getText()})`, node.type);
    ts.forEachChild(node, (child) => visit(child, name));
  };
  visit(source, path.basename(file));
  return shapes;
}

const key = (s: Shape) => `${s.kind}:${s.members.join(',')}`;

describe('wire shapes', () => {
  it('are declared once, in src/protocol: the browser UI, the CLI and the chat API import them', () => {
    const declared = new Map<string, Shape>();
    for (const file of sources('src/protocol')) for (const shape of shapesOf(file)) declared.set(key(shape), shape);
    // The check reads real declarations: the decision, the severities, the terminal events and the suggestions.
    expect(declared.size).toBeGreaterThan(20);
    const again: string[] = [];
    for (const file of [...sources('web/src'), ...sources('src/cli'), ...sources('src/api')])
      for (const shape of shapesOf(file)) {
        const original = declared.get(key(shape));
        if (original) again.push(`${file} ${shape.name} re-declares ${original.file} ${original.name}`);
      }
    expect(again).toEqual([]);
  });
});
