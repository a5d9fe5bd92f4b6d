import 'reflect-metadata';
import { Transform, Type } from 'class-transformer';
import { ValidateNested, registerDecorator, type ValidationArguments } from 'class-validator';
import { ACCESS_TYPES, type AccessType } from '@svc/contracts';
import { textCharacterProblem, type FieldRule } from '../rules/field-rule';
import { catalogue, type FieldDoc } from './field-catalogue';

/** Whether a field must be there: always, never required, or depending on its siblings. */
export type Presence = 'required' | 'optional' | RequiredWhen;

export interface RequiredWhen {
  /** True when the holder (the object that has the field) needs the field. */
  requiredWhen: (holder: Record<string, unknown>) => boolean;
  /** The message reason when it is missing, e.g. 'is required when IsContinuous is false'. */
  reason: string;
}

/**
 * Constraint names, so that the message collector can pick one message per field.
 * Each decorator below registers exactly one of them (plus class-validator's nested validation for groups).
 */
export const CONSTRAINTS = {
  field: 'svcField',
  group: 'svcGroup',
  notAllowed: 'svcNotAllowed',
  credential: 'svcCredential',
} as const;

type ProblemOf = (value: unknown, holder: Record<string, unknown>) => string | null;

function registerProblem(name: string, target: object, propertyKey: string | symbol, problemOf: ProblemOf): void {
  registerDecorator({
    name,
    target: target.constructor,
    propertyName: String(propertyKey),
    validator: {
      validate: (value: unknown, args: ValidationArguments) => problemOf(value, holderOf(args)) === null,
      defaultMessage: (args: ValidationArguments) => problemOf(args.value, holderOf(args)) ?? '',
    },
  });
}

function holderOf(args: ValidationArguments): Record<string, unknown> {
  return args.object as Record<string, unknown>;
}

function absenceProblem(presence: Presence, holder: Record<string, unknown>): string | null {
  if (presence === 'optional') return null;
  if (presence === 'required') return 'is required';
  return presence.requiredWhen(holder) ? presence.reason : null;
}

/** A JSON null says no more than an absent field. */
function withoutNull(coerce: (raw: unknown) => unknown): (params: { value: unknown }) => unknown {
  return ({ value }) => (value === null || value === undefined ? undefined : coerce(value));
}

/** A single value checked by `rule`, after `rule.coerce` applied the leniencies. */
export function Field(rule: FieldRule, presence: Presence, doc: FieldDoc = {}): PropertyDecorator {
  return (target, propertyKey) => {
    catalogue(target, { kind: 'field', name: String(propertyKey), rule, presence, doc });
    Transform(withoutNull((raw) => rule.coerce(raw)))(target, propertyKey);
    registerProblem(CONSTRAINTS.field, target, propertyKey, (value, holder) =>
      value === undefined ? absenceProblem(presence, holder) : (textCharacterProblem(value) ?? rule.problem(value)),
    );
  };
}

/** A nested group of fields (Source, Warehouse, ...), validated with its own class. */
export function Group(model: () => new () => object, presence: Presence, doc: FieldDoc = {}): PropertyDecorator {
  return (target, propertyKey) => {
    catalogue(target, { kind: 'group', name: String(propertyKey), model, presence, doc });
    Type(model)(target, propertyKey);
    // An empty XML element (<ReseedingSchedule/>) decodes to '': a group with no fields in it.
    Transform(withoutNull((raw) => (raw === '' ? new (model())() : raw)))(target, propertyKey);
    ValidateNested()(target, propertyKey);
    registerProblem(CONSTRAINTS.group, target, propertyKey, (value, holder) => {
      if (value === undefined) return absenceProblem(presence, holder);
      if (Array.isArray(value)) return 'must be a group of fields, not a list';
      if (!(value instanceof model())) return 'must be a group of fields, not a single value';
      return null;
    });
  };
}

/** A field the operation refuses, with the reason (e.g. AddUpdateTimestamp on Alter). */
export function NotAllowed(reason: string): PropertyDecorator {
  return (target, propertyKey) => {
    catalogue(target, { kind: 'notAllowed', name: String(propertyKey), reason });
    Transform(withoutNull((raw) => raw))(target, propertyKey);
    registerProblem(CONSTRAINTS.notAllowed, target, propertyKey, (value) => (value === undefined ? null : reason));
  };
}

/**
 * A credential that belongs to one AccessType (docs/API.md, Warehouse): AccessKey/SecretKey to AccessKey,
 * AccountId/RoleName to IAMRole. It must be absent when the holder's AccessType is the other one. With
 * 'complete' it is also required when the AccessType is its own; 'partial' (an Alter) leaves that to the
 * merged configuration. An empty value counts as absent.
 */
export function AccessCredential(owner: AccessType, rule: FieldRule, completeness: 'complete' | 'partial', doc: FieldDoc = {}): PropertyDecorator {
  return (target, propertyKey) => {
    catalogue(target, { kind: 'credential', name: String(propertyKey), owner, rule, completeness, doc });
    Transform(withoutNull((raw) => (raw === '' ? undefined : rule.coerce(raw))))(target, propertyKey);
    registerProblem(CONSTRAINTS.credential, target, propertyKey, (value, holder) => {
      const chosen = holder['accessType'];
      if (value === undefined) {
        return completeness === 'complete' && chosen === owner ? `is required when AccessType is ${owner}` : null;
      }
      if (isAccessType(chosen) && chosen !== owner) return `must not be given when AccessType is ${chosen}`;
      return textCharacterProblem(value) ?? rule.problem(value);
    });
  };
}

function isAccessType(value: unknown): value is AccessType {
  return (ACCESS_TYPES as readonly unknown[]).includes(value);
}
