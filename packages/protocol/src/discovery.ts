import {
  AgentInfo,
  CommandInfo,
  LocationInfo,
  ModelInfo,
  PermissionRequest,
  ProviderInfo,
  SkillInfo,
} from "@opencode-ai/schema"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { InvalidRequestError, ProviderNotFoundError } from "./errors.ts"
import { LocationQuery } from "./params.ts"
import { located } from "./envelope.ts"

/**
 * What the host offers, at upstream OpenCode v2's discovery operations: health, location, agents, models,
 * providers, commands, skills and pending permission requests. Each list answers `{ location, data }` for
 * the requested location (`location[directory]`), or the server's own.
 */

const locationErrors = [InvalidRequestError] as const

export class HealthGroup extends HttpApiGroup.make("v2.health")
  .add(
    HttpApiEndpoint.get("get", "/api/health", {
      success: Schema.Struct({ healthy: Schema.Literal(true), version: Schema.String }).annotate({
        identifier: "Health",
      }),
    }).annotate(OpenApi.Summary, "Check server health"),
  )
  .annotate(OpenApi.Description, "Whether the server is up, and its version") {}

export class LocationGroup extends HttpApiGroup.make("v2.location")
  .add(
    HttpApiEndpoint.get("get", "/api/location", {
      query: LocationQuery,
      success: LocationInfo,
      error: locationErrors,
    }).annotate(OpenApi.Summary, "Resolve the requested location (an existing directory) or the server's own"),
  )
  .annotate(OpenApi.Description, "Locations") {}

export class AgentGroup extends HttpApiGroup.make("v2.agent")
  .add(
    HttpApiEndpoint.get("list", "/api/agent", {
      query: LocationQuery,
      success: located(Schema.Array(AgentInfo)),
      error: locationErrors,
    }).annotate(OpenApi.Summary, "The agents a session may use: the default `build` and every configured one"),
  )
  .annotate(OpenApi.Description, "Agents") {}

export class ModelGroup extends HttpApiGroup.make("v2.model")
  .add(
    HttpApiEndpoint.get("list", "/api/model", {
      query: LocationQuery,
      success: located(Schema.Array(ModelInfo)),
      error: locationErrors,
    }).annotate(OpenApi.Summary, "The models of every usable provider, with their limits"),
  )
  .annotate(OpenApi.Description, "Models") {}

export class ProviderGroup extends HttpApiGroup.make("v2.provider")
  .add(
    HttpApiEndpoint.get("list", "/api/provider", {
      query: LocationQuery,
      success: located(Schema.Array(ProviderInfo)),
      error: locationErrors,
    }).annotate(OpenApi.Summary, "Usable providers: configured, found by their key variable, or built in"),
    HttpApiEndpoint.get("get", "/api/provider/:providerID", {
      params: { providerID: Schema.String },
      query: LocationQuery,
      success: located(ProviderInfo),
      error: [InvalidRequestError, ProviderNotFoundError],
    }).annotate(OpenApi.Summary, "One usable provider"),
  )
  .annotate(OpenApi.Description, "Model providers") {}

export class CommandGroup extends HttpApiGroup.make("v2.command")
  .add(
    HttpApiEndpoint.get("list", "/api/command", {
      query: LocationQuery,
      success: located(Schema.Array(CommandInfo)),
      error: locationErrors,
    }).annotate(OpenApi.Summary, "Slash commands"),
  )
  .annotate(OpenApi.Description, "Commands") {}

export class SkillGroup extends HttpApiGroup.make("v2.skill")
  .add(
    HttpApiEndpoint.get("list", "/api/skill", {
      query: LocationQuery,
      success: located(Schema.Array(SkillInfo)),
      error: locationErrors,
    }).annotate(OpenApi.Summary, "Skills the model can load"),
  )
  .annotate(OpenApi.Description, "Skills") {}

export class PermissionRequestGroup extends HttpApiGroup.make("v2.permission.request")
  .add(
    HttpApiEndpoint.get("list", "/api/permission/request", {
      query: LocationQuery,
      success: located(Schema.Array(PermissionRequest)),
      error: locationErrors,
    }).annotate(OpenApi.Summary, "Pending permission requests of every session at the location, oldest first"),
  )
  .annotate(OpenApi.Description, "Permission requests across sessions") {}
