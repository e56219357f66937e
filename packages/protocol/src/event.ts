import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { InvalidRequestError, SessionNotFoundError } from "./errors.ts"
import { EventStream, eventStreamDocument } from "./event-stream.ts"

/** Live events of the whole host: upstream OpenCode v2's `v2.event.subscribe`. */
export class EventGroup extends HttpApiGroup.make("v2.event")
  .add(
    HttpApiEndpoint.get("subscribe", "/api/event", {
      // Any string: an unknown session (or an empty value, read as none) is answered, not refused.
      query: { sessionID: Schema.optionalKey(Schema.String) },
      success: EventStream,
      error: [InvalidRequestError, SessionNotFoundError],
    })
      .annotate(OpenApi.Summary, "Subscribe to events")
      .annotate(
        OpenApi.Description,
        "A server-sent-event stream of upstream's `V2Event` union: `server.connected`, then every durable event " +
          "(with its `durable { aggregateID, seq, version }`) and live event (deltas, status). Each `data:` line is one " +
          "JSON event; a comment line is sent every 15 s. A subscriber that falls too far behind receives a " +
          "`server.error` event and the stream ends. Addition: the query parameter `sessionID` narrows it to one " +
          "session (not declared here, so the generated method keeps upstream's signature; the SDK's `subscribe` " +
          "helper sends it).",
      )
      .annotate(
        OpenApi.Transform,
        eventStreamDocument({ event: "V2Event", description: "Event stream", hidden: ["sessionID"] }),
      ),
  )
  .annotate(OpenApi.Description, "Live events (server-sent events)") {}
