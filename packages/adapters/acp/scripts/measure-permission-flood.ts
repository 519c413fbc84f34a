/**
 * How long the ACP translator (with its audit fold) takes for a turn with N tool calls that each ask for
 * permission: `node --import tsx packages/adapters/acp/scripts/measure-permission-flood.ts 500 1000 2000`.
 * Each step of a turn must cost the same whatever came before it (a flood of permission requests was
 * quadratic: every frame copied every open tool and approval).
 */
import { acpTranslator } from '../src/index';
import { permissionFlood as flood } from '../test/flood-frames';
import { records, translateAll } from '../test/trace';

for (const arg of process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['500', '1000', '2000']) {
  const n = Number(arg);
  const input = records(flood(n));
  const started = performance.now();
  const out = translateAll(acpTranslator, input).events;
  const ms = performance.now() - started;
  console.log(
    `${n} permission requests: ${ms.toFixed(0)} ms, ${(ms / n).toFixed(3)} ms each, ${out.length} events`,
  );
}
