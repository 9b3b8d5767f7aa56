import { MemoryError } from '../errors';
import { type SourceCollector, titleOf } from './collector';
import { fileAt, filesIn, type FormatHandler, isUnder, join, realOf } from './format-handler';
import { type GraphEntity, type GraphRelation, readGraph, storeEntry } from './mcp-graph';

/**
 * The MCP reference memory server's knowledge graph (memory.jsonl; memory.json
 * before it was renamed). Each entity is a memory: its name and type, then
 * its observations and the relations it starts, one per line, tagged with
 * its type. A relation whose first entity is not in the file is a memory of
 * its own. Entities this store wrote come back as they were, under their
 * ids. Good lines import; broken ones are listed with their line numbers.
 */

const GRAPH_NAMES = new Set(['memory.jsonl', 'memory.json']);

export const mcpMemory: FormatHandler = {
  label: 'MCP memory server graph',
  looksFor: 'memory.jsonl files (JSON lines of entities and relations)',
  detectable: true,
  async locate(ws, folder) {
    const walked = (await ws.walkNamed(GRAPH_NAMES)).filter((file) => isUnder(folder, file));
    return filesIn(
      ws,
      folder,
      (base) => [...fileAt(ws, join(base, 'memory.jsonl')), ...fileAt(ws, join(base, 'memory.json'))],
      walked,
    );
  },
  collect(ws, file, into) {
    const real = realOf(ws, file);
    const graph = readGraph(ws.readText(real));
    if (graph.entities.length === 0 && graph.relations.length === 0 && graph.problems.length > 0) {
      throw new MemoryError(
        'IMPORT_INVALID',
        `${file} is not an MCP memory graph (JSON lines of entities and relations): ${graph.problems[0]!.message}`,
      );
    }
    into.read(real);
    const byName = new Map(graph.entities.map((entity) => [entity.name, entity]));
    const outgoing = new Map<string, GraphRelation[]>();
    const loose: GraphRelation[] = [];
    for (const relation of graph.relations) {
      const from = byName.get(relation.from);
      // A relation stays apart from an entity this store wrote: that entity's text is the memory's, exactly.
      if (from && !storeEntry(from)) {
        outgoing.set(relation.from, [...(outgoing.get(relation.from) ?? []), relation]);
      } else loose.push(relation);
    }
    for (const entity of graph.entities) collectEntity(into, real, entity, outgoing.get(entity.name) ?? []);
    for (const relation of loose) {
      const content = `${relation.from} ${relation.relationType} ${relation.to}`;
      into.add({
        type: 'memory',
        content,
        tags: [],
        category: 'fact',
        path: real,
        line: relation.line,
        group: real,
        key: `relation\u0000${relation.from}\u0000${relation.relationType}\u0000${relation.to}`,
        title: content,
      });
    }
    for (const problem of graph.problems) into.problem(real, problem.message, problem.line);
    if (graph.problems.length === 0) into.complete.add(real);
  },
};

function collectEntity(
  into: SourceCollector,
  file: string,
  entity: GraphEntity,
  relations: readonly GraphRelation[],
): void {
  const own = storeEntry(entity);
  if (own) {
    const { id, ...fields } = own;
    into.add({
      ...fields,
      path: file,
      line: entity.line,
      group: file,
      key: id,
      storeId: id,
      title: titleOf([], own.content),
    });
    return;
  }
  const facts = [
    ...entity.observations.filter((observation) => observation.trim() !== ''),
    ...relations.map((relation) => `${relation.relationType} ${relation.to}`),
  ];
  if (facts.length === 0) {
    into.skip(file, entity.name, 'an entity without observations or relations says nothing to remember', entity.line);
    return;
  }
  const type = entity.entityType.trim();
  into.add({
    type: 'memory',
    content: [type ? `${entity.name} (${type})` : entity.name, ...facts.map((fact) => `- ${fact}`)].join('\n'),
    tags: type ? [type] : [],
    category: 'fact',
    path: file,
    line: entity.line,
    group: file,
    key: `entity\u0000${entity.name}`,
    title: entity.name,
  });
}
