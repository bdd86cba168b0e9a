import { Kind, type OperationDefinitionNode, parse, print, type SelectionNode, type ValueNode } from 'graphql';
import type { Field } from './cost.js';

/**
 * The top-level selection of the document's first operation, read with graphql-js: each field by its
 * name (an alias does not change what it costs or answers), its arguments as written (`$first` for a
 * variable, `250` for a literal), and its nested selection. Inline fragments (`... on DiscountCodeBasic
 * { status }`) are kept with their type condition, as the discount documents select through them;
 * named fragments are not supported (the Admin client sends none).
 */
export function parseSelection(text: string): Field[] {
  const document = parse(text, { noLocation: true });
  const operation = document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  if (operation === undefined) throw new Error('the document has no operation');
  return fieldsOf(operation.selectionSet.selections);
}

function fieldsOf(selections: readonly SelectionNode[]): Field[] {
  return selections.map((s): Field => {
    if (s.kind === Kind.INLINE_FRAGMENT) {
      const on = s.typeCondition?.name.value;
      if (on === undefined) throw new Error('an inline fragment needs a type condition');
      return { name: '', on, args: {}, children: fieldsOf(s.selectionSet.selections) };
    }
    if (s.kind !== Kind.FIELD) throw new Error('named fragments are not supported');
    const args: Record<string, string> = {};
    for (const a of s.arguments ?? []) args[a.name.value] = argumentText(a.value);
    return { name: s.name.value, args, children: s.selectionSet ? fieldsOf(s.selectionSet.selections) : [] };
  });
}

function argumentText(value: ValueNode): string {
  if (value.kind === Kind.VARIABLE) return `$${value.name.value}`;
  if (value.kind === Kind.INT || value.kind === Kind.FLOAT) return value.value;
  return print(value);
}
