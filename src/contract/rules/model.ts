import type { ServiceEndpoint } from '../endpoints.js';
import { isKnownModel, modelsFor, type Edition } from '../models.js';
import type { Checker } from './checker.js';

/** `model` is required; one the catalogue does not list is only warned about (the service adds models). */
export function checkModel(
  check: Checker,
  endpoint: ServiceEndpoint,
  edition: Edition,
  model: unknown,
): model is string {
  if (!check.requiredString('model', model)) return false;
  if (!isKnownModel(edition, endpoint, model)) {
    check.warn(
      `model ${model} is not in edition ${edition}'s ${endpoint} list (${modelsFor(edition, endpoint).join(', ')})`,
    );
  }
  return true;
}
