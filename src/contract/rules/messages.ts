import { effortEffective, isKnownModel, messagesMediaKinds, type Edition } from '../models.js';
import { Checker, isObject } from './checker.js';
import { checkModel } from './model.js';
import { checkEffort, checkMessageList, checkSampling, checkThinking } from './generation.js';

const ROLES = ['user', 'assistant'] as const;
const TOOL_CHOICES = ['auto', 'any', 'tool', 'none'] as const;

/** What is wrong with a messages-style request body, judged against one edition's catalogue. */
export function checkMessagesBody(input: unknown, edition: Edition): Checker {
  const check = new Checker();
  const body = check.objectBody(input);
  if (!body) return check;
  const model = body.model;
  checkModel(check, 'messages', edition, model);
  const imagesAllowed =
    typeof model !== 'string' ||
    !isKnownModel(edition, 'messages', model) ||
    messagesMediaKinds(model).includes('image');
  checkMessageList(check, body.messages, ROLES, (field, content) => {
    if (typeof content === 'string') return;
    if (!Array.isArray(content)) {
      check.fail(field, 'must be a string or an array of content blocks', content);
      return;
    }
    content.forEach((block: unknown, j) => checkBlock(check, `${field}[${j}]`, block, imagesAllowed, String(model)));
  });
  check.positiveInteger('max_tokens', body.max_tokens);
  checkSampling(check, body);
  checkSystem(check, body.system);
  const toolNames = checkTools(check, body.tools);
  checkToolChoice(check, body.tool_choice, toolNames);
  if (body.stop_sequences !== undefined) {
    const stops = body.stop_sequences;
    if (!Array.isArray(stops) || stops.some((s) => typeof s !== 'string' || s.length === 0)) {
      check.fail('stop_sequences', 'must be an array of non-empty strings', stops);
    }
  }
  checkEffort(check, 'output_config', body.output_config);
  if (body.output_config !== undefined && typeof model === 'string' && !effortEffective(edition, model)) {
    check.warn(`output_config.effort has no effect on ${model} in edition ${edition} (only Ring-2.6-1T, edition A)`);
  }
  checkThinking(check, body.thinking, model, edition);
  return check;
}

function checkBlock(check: Checker, at: string, block: unknown, imagesAllowed: boolean, model: string): void {
  if (!isObject(block) || typeof block.type !== 'string') {
    check.fail(`${at}.type`, 'every content block needs a type', block);
    return;
  }
  switch (block.type) {
    case 'text':
      if (typeof block.text !== 'string') check.fail(`${at}.text`, 'must be a string', block.text);
      break;
    case 'image':
      if (!imagesAllowed)
        check.fail(`${at}.type`, `image blocks are accepted only by Ling-3.0-flash-VL, not by ${model}`);
      if (!isObject(block.source))
        check.fail(`${at}.source`, 'is required: {type, media_type, data} or {type: "url", url}');
      break;
    case 'tool_use':
      check.requiredString(`${at}.id`, block.id);
      check.requiredString(`${at}.name`, block.name);
      if (!isObject(block.input)) check.fail(`${at}.input`, 'must be an object', block.input);
      break;
    case 'tool_result':
      check.requiredString(`${at}.tool_use_id`, block.tool_use_id);
      break;
    default:
      break;
  }
}

/** The spec gives `system` as object[] only: a plain string is refused, so no client of hark's drifts to it. */
function checkSystem(check: Checker, system: unknown): void {
  if (system === undefined) return;
  if (!Array.isArray(system)) {
    check.fail('system', 'must be an array of {type: "text", text} items', system);
    return;
  }
  system.forEach((item: unknown, i) => {
    if (!isObject(item) || item.type !== 'text' || typeof item.text !== 'string') {
      check.fail(`system[${i}]`, 'must be {type: "text", text: string}', item);
    }
  });
}

function checkTools(check: Checker, tools: unknown): string[] {
  if (tools === undefined) return [];
  if (!Array.isArray(tools)) {
    check.fail('tools', 'must be an array of tool definitions', tools);
    return [];
  }
  const names: string[] = [];
  tools.forEach((tool: unknown, i) => {
    const at = `tools[${i}]`;
    if (!isObject(tool)) {
      check.fail(at, 'must be {name, description, input_schema}', tool);
      return;
    }
    if (check.requiredString(`${at}.name`, tool.name)) names.push(tool.name);
    check.optionalString(`${at}.description`, tool.description);
    if (!isObject(tool.input_schema) || tool.input_schema.type !== 'object') {
      check.fail(`${at}.input_schema`, 'is required: a JSON-schema object with type "object"', tool.input_schema);
    }
  });
  return names;
}

function checkToolChoice(check: Checker, choice: unknown, toolNames: string[]): void {
  if (choice === undefined) return;
  if (!isObject(choice)) {
    check.fail('tool_choice', 'must be an object {type}', choice);
    return;
  }
  if (choice.type === undefined) check.fail('tool_choice.type', `is required: one of ${TOOL_CHOICES.join(', ')}`);
  else check.oneOf('tool_choice.type', choice.type, TOOL_CHOICES);
  if (choice.type === 'tool') {
    if (check.requiredString('tool_choice.name', choice.name) && !toolNames.includes(choice.name)) {
      check.fail('tool_choice.name', 'must name one of the tools offered', choice.name);
    }
  }
  if ((choice.type === 'any' || choice.type === 'tool') && toolNames.length === 0) {
    check.fail('tool_choice', `type "${String(choice.type)}" needs at least one tool in tools`);
  }
}
