import { HttpApiMiddleware, HttpApiSecurity, OpenApi } from "effect/http-api"
import {
  ForbiddenError,
  InvalidRequestError,
  PayloadTooLargeError,
  UnauthorizedError,
  UnknownError,
  UnsupportedMediaTypeError,
} from "./errors.ts"

/**
 * Turns request decoding failures into `InvalidRequestError` (400, naming the field) and unexpected
 * failures into `UnknownError` (500, with a logged `ref`). Applied to every endpoint, so every operation
 * documents these bodies. The front door answers some before routing and they are declared here so
 * clients know their shape: `PayloadTooLargeError` (a body over the limit), `ForbiddenError` (a
 * `Host` that is not allowed, see `src/http/host.ts`), `UnsupportedMediaTypeError` (a body that is not
 * JSON) and `InvalidRequestError` for a malformed path id or a dot segment (see `src/http/path.ts`).
 */
export class RequestErrors extends HttpApiMiddleware.Service<RequestErrors>()("@opencode-ai/protocol/RequestErrors", {
  error: [InvalidRequestError, ForbiddenError, PayloadTooLargeError, UnsupportedMediaTypeError, UnknownError],
}) {}

/**
 * HTTP Basic authentication (user `opencode`), enforced when the server has a password. The check runs
 * before routing for every request (see `src/http/auth.ts`); this declaration documents the scheme and
 * the 401 body on every operation.
 */
export class Authorization extends HttpApiMiddleware.Service<Authorization>()("@opencode-ai/protocol/Authorization", {
  security: {
    basic: HttpApiSecurity.basic.pipe(
      HttpApiSecurity.annotate(
        OpenApi.Description,
        "HTTP Basic auth with user `opencode` and the server password; only required when the server has one.",
      ),
    ),
  },
  error: UnauthorizedError,
}) {}
