import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { getMetadataStorage, validateSync, type ValidationError } from 'class-validator';
import { CONSTRAINTS } from './dto/decorators';
import { fieldLabel } from './field-label';
import { type ParseResult } from './parse-result';
import { isRecord } from './rules/field-rule';

/** Enough for any real request; a flood of problems from a hostile body stops here. */
export const MAX_MESSAGES = 100;
/** Requests are at most three levels deep (request → group → field); deeper input is refused before it is walked. */
const MAX_DEPTH = 8;
/** A Create has about 45 fields; thousands of unknown ones would only cost validation time. */
export const MAX_FIELDS = 500;
/**
 * Names of Object.prototype's members (toString, valueOf, hasOwnProperty, __defineGetter__, __proto__, ...) and
 * 'prototype'. No model has such a field, and class-transformer silently skips a key whose name is a method of
 * the instance, so without this check they would be dropped instead of refused as unknown.
 */
const FORBIDDEN_KEYS: ReadonlySet<string> = new Set([...Object.getOwnPropertyNames(Object.prototype), 'prototype']);
const CONSTRAINT_PRIORITY: readonly string[] = [
  CONSTRAINTS.notAllowed,
  CONSTRAINTS.group,
  CONSTRAINTS.field,
  CONSTRAINTS.credential,
];

/**
 * Coerces a raw tree into `model` (class-transformer, running each field's leniencies), validates it
 * (class-validator) and returns either the canonical plain value or every problem, one message per field.
 */
export function validateModel<T extends object>(model: new () => T, tree: unknown): ParseResult<T> {
  if (!isRecord(tree)) return { ok: false, messages: ['the request must be a group of fields'] };
  const structural = structuralProblems(tree, []);
  if (structural.length) return { ok: false, messages: capped(structural) };
  if (countFields(tree, MAX_FIELDS) > MAX_FIELDS) return { ok: false, messages: [`the request has more than ${MAX_FIELDS} fields`] };

  const instance = plainToInstance(model, tree);
  const errors = validateSync(instance, {
    whitelist: true,
    forbidNonWhitelisted: true,
    // Every nested value is an instance made by @Type; class-less objects never reach validation.
    forbidUnknownValues: false,
    validationError: { target: true, value: false },
  });
  const messages = errors.flatMap((error) => messagesOf(error, []));
  return messages.length ? { ok: false, messages: capped(messages) } : { ok: true, value: plainCopy(instance) as T };
}

/**
 * Keys that would reach object prototypes, and nesting far beyond any request (lists included), are refused
 * before class-transformer walks the tree recursively.
 */
function structuralProblems(value: unknown, path: string[], depth = 0): string[] {
  if (!Array.isArray(value) && !isRecord(value)) return [];
  if (depth >= MAX_DEPTH) return [`${fieldLabel(path)}: is nested too deeply`];
  if (Array.isArray(value)) return value.flatMap((item) => structuralProblems(item, path, depth + 1));
  return Object.entries(value).flatMap(([key, field]) =>
    FORBIDDEN_KEYS.has(key) ? [`${fieldLabel([...path, key])}: unknown field`] : structuralProblems(field, [...path, key], depth + 1),
  );
}

/** Keys and nested lists or groups in the tree; counting stops once past `limit`. Depth is already bounded. */
function countFields(value: unknown, limit: number): number {
  const children = Array.isArray(value) ? value : isRecord(value) ? Object.values(value) : [];
  let count = 0;
  for (const child of children) {
    if (isRecord(value) || Array.isArray(child) || isRecord(child)) count += 1;
    if (count > limit) return count;
    count += countFields(child, limit - count);
  }
  return count;
}

function messagesOf(error: ValidationError, parentPath: string[]): string[] {
  const path = [...parentPath, error.property];
  const constraints = error.constraints ?? {};
  if (constraints['whitelistValidation'] !== undefined) return [`${fieldLabel(path)}: ${unknownFieldReason(error)}`];
  const chosen = CONSTRAINT_PRIORITY.find((name) => constraints[name] !== undefined);
  if (chosen) return [`${fieldLabel(path)}: ${constraints[chosen]}`];
  // Only nested validation failed (or nothing at this level): the problems are in the group's fields.
  return (error.children ?? []).flatMap((child) => messagesOf(child, path));
}

/** What a caller who sends Warehouse.ExternalId hears: the service issues it (the confused-deputy protection). */
export const EXTERNAL_ID_NOT_SETTABLE = "is issued by the service for AccessType=IAMRole (Create's answer and Describe show it) and cannot be set";

/** `{ParallelTablesLimit}` sent in JSON is a known name in the wrong case: say so. */
function unknownFieldReason(error: ValidationError): string {
  const key = error.property;
  const lowered = key.charAt(0).toLowerCase() + key.slice(1);
  if (lowered === 'externalId') return EXTERNAL_ID_NOT_SETTABLE;
  const target: unknown = error.target;
  if (lowered === key || typeof target !== 'object' || target === null) return 'unknown field';
  const known = getMetadataStorage()
    .getTargetValidationMetadatas(target.constructor, '', true, false)
    .some((metadata) => metadata.propertyName === lowered);
  return known ? `unknown field; JSON names start with a lower-case letter (${lowered})` : 'unknown field';
}

function capped(messages: string[]): string[] {
  if (messages.length <= MAX_MESSAGES) return messages;
  return [...messages.slice(0, MAX_MESSAGES), `… and ${messages.length - MAX_MESSAGES} more problems`];
}

/** The validated instance as plain data: class prototypes dropped, absent optional fields left out entirely. */
function plainCopy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plainCopy);
  if (!isRecord(value)) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    if (field !== undefined) copy[key] = plainCopy(field);
  }
  return copy;
}
