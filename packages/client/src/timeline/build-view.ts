import {
  type CapabilityFlag,
  type NegotiatedCapabilities,
  noCapabilities,
  normalizeNegotiatedCapabilities,
} from '@agentlane/contract';
import {
  type EntityAside,
  type PlanItem,
  SURFACES,
  type Surface,
  type TimelineItem,
  type TimelineView,
  type UsageTotals,
} from './types.js';
import { sumUsage } from './usage.js';

/** Which capability flag turns each surface on before any of its events arrives. */
const SURFACE_FLAG: Partial<Record<Surface, CapabilityFlag>> = {
  reasoning: 'reasoning',
  plan: 'plans',
  tools: 'toolProgress',
  files: 'fileDiffs',
  terminal: 'directTerminal',
  children: 'childSessions',
  approvals: 'approvals',
  questions: 'questions',
  commands: 'commands',
  usage: 'usage',
  modelPicker: 'modelSelection',
};

const ITEM_SURFACE: Partial<Record<TimelineItem['type'], Surface>> = {
  reasoning: 'reasoning',
  plan: 'plan',
  tool: 'tools',
  file: 'files',
  terminal: 'terminal',
  artifact: 'artifacts',
  child: 'children',
  approval: 'approvals',
  question: 'questions',
  context: 'context',
};

/** A timeline's view from its entities: session facts set on the view, items in timeline order. */
export function buildView(timelineKey: string, entities: (TimelineItem | EntityAside)[]): TimelineView {
  const items: TimelineItem[] = [];
  const view: TimelineView = {
    key: timelineKey,
    namespace: timelineKey === '' ? [] : timelineKey.split('/'),
    items,
    capabilities: noCapabilities(),
    metadata: {},
    commands: [],
    usage: { turns: {} },
    surfaces: Object.fromEntries(SURFACES.map((s) => [s, false])) as Record<Surface, boolean>,
  };
  let sessionUsage: UsageTotals | undefined;
  for (const entity of entities) {
    switch (entity.type) {
      case 'session':
        view.session = entity.value;
        view.capabilities = normalizeNegotiatedCapabilities(entity.value.capabilities);
        break;
      case 'metadata':
        view.metadata = entity.value;
        break;
      case 'commands':
        view.commands = entity.value;
        break;
      case 'mode':
        view.mode = entity.value;
        break;
      case 'usage':
        if (entity.scope === 'session') sessionUsage = entity.value;
        else view.usage.turns[entity.turnId] = entity.value;
        break;
      default:
        items.push(entity);
        if (entity.type === 'plan') view.plan = entity as PlanItem;
    }
  }
  items.sort((a, b) => a.order - b.order || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const turnUsage = Object.values(view.usage.turns);
  if (sessionUsage) view.usage.total = sessionUsage;
  else if (turnUsage.length > 0) view.usage.total = sumUsage(turnUsage);
  showSurfaces(view);
  return view;
}

/** Turns on the surfaces the capabilities announce and those something arrived for. */
function showSurfaces(view: TimelineView): void {
  const surfaces = view.surfaces;
  const caps: NegotiatedCapabilities = view.capabilities;
  for (const surface of SURFACES) {
    const flag = SURFACE_FLAG[surface];
    if (flag && caps[flag]) surfaces[surface] = true;
  }
  for (const item of view.items) {
    const surface = ITEM_SURFACE[item.type];
    if (surface) surfaces[surface] = true;
  }
  if (view.commands.length > 0) surfaces.commands = true;
  if (view.mode) surfaces.modes = true;
  if (view.usage.total) surfaces.usage = true;
}
