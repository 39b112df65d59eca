// Small parsers shared by the settings readers: environment values as numbers and switches.
import { DocDBError, echo } from "../errors.js";

/** Environment variables by name (process.env, or a record standing in for it). */
export type Env = Record<string, string | undefined>;

export function positiveInteger(value: string | undefined, name: string, allowZero = false): number | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < (allowZero ? 0 : 1)) {
    throw new DocDBError("INVALID_REQUEST", `${name}="${echo(value)}" must be a ${allowZero ? "non-negative" : "positive"} whole number`);
  }
  return n;
}

/** A yes/no switch: 0, false, no and off are no; anything else set is yes; unset or blank is undefined. */
export function flag(value: string | undefined): boolean | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  return !/^(0|false|no|off)$/i.test(value.trim());
}

/** The value unless it is missing or blank. */
export function nonEmpty(value: string | undefined): string | undefined {
  return value !== undefined && value.trim() !== "" ? value : undefined;
}
