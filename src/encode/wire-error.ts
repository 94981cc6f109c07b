/**
 * What the provider-format encoders need of a package error to write it in their API's own shape: its
 * type, its message and the HTTP status it stands for. One place for the status each MMSP error type
 * stands for (SPEC §9's statuses of refusals, read backwards).
 */
import { toWireError } from "../errors.js";

/** An error as an API's error shape takes it. */
export interface ErrorParts {
  /** The error's type (an MMSP type, or the upstream's own type as it was read). */
  type: string;
  message: string;
  /** The HTTP status it stands for. */
  status: number;
}

/** The HTTP status of each MMSP error type (the rest: 500). */
const STATUS: Readonly<Record<string, number>> = {
  InvalidRequestError: 400,
  UnsupportedParameterError: 400,
  UnsupportedOperationError: 400,
  ToolCallArgumentParseError: 502,
  StreamProtocolError: 502,
  EmptyResponseError: 502,
  AuthenticationError: 401,
  PermissionDeniedError: 403,
  NotFoundError: 404,
  RateLimitError: 429,
  BudgetExceeded: 429,
  StreamCancelled: 499,
  OverloadedError: 529,
};

const int = (v: unknown): number | undefined => (typeof v === "number" && Number.isInteger(v) && v >= 100 && v <= 599 ? v : undefined);

/**
 * The type, message and status of any thrown value (`toWireError`'s shape, SPEC §6): an upstream's
 * own error object as it was read keeps its type (Gemini's `status` string) and status (its `status`
 * or Gemini's `code`); an MMSP type gets its status from the table.
 */
export function errorParts(reason: unknown): ErrorParts {
  const wire = toWireError(reason) as Record<string, unknown>;
  const type = typeof wire.type === "string" && wire.type
    ? wire.type
    : typeof wire.status === "string" && wire.status
    ? wire.status
    : "Error";
  const message = typeof wire.message === "string" && wire.message ? wire.message : type;
  const known = Object.prototype.hasOwnProperty.call(STATUS, type) ? STATUS[type] : undefined;
  // (an UpstreamError relays the object it read, without its refusal's status: the error keeps that)
  const own = int((reason as { status?: unknown } | null)?.status);
  return { type, message, status: own ?? int(wire.status) ?? int(wire.code) ?? known ?? 500 };
}
