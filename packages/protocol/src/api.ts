import { SessionDurableEvent, V2Event } from "@opencode-ai/schema"
import { HttpApi, OpenApi } from "effect/http-api"
import {
  AgentGroup,
  CommandGroup,
  HealthGroup,
  LocationGroup,
  ModelGroup,
  PermissionRequestGroup,
  ProviderGroup,
  SkillGroup,
} from "./discovery.ts"
import { EventGroup } from "./event.ts"
import { FsGroup } from "./fs.ts"
import { ConfigGroup, PluginGroup } from "./host.ts"
import { McpGroup } from "./mcp.ts"
import { LspGroup } from "./lsp.ts"
import { Authorization, RequestErrors } from "./middleware.ts"
import { SessionPermissionGroup } from "./permission.ts"
import { SessionRevertGroup } from "./revert.ts"
import { QuestionRequestGroup, SessionQuestionGroup, SessionTodoGroup } from "./question.ts"
import { SessionGroup } from "./session.ts"
import { StorageGroup } from "./storage.ts"

/** The API contract's version (not the package version, so releases do not churn the document). */
export const API_VERSION = "2"

/**
 * The opencode2 host HTTP API: upstream OpenCode v2's operations (`v2.session.prompt`, `v2.agent.list`...)
 * plus the host's additions. Operation ids are the generated SDK's method paths (`client.v2.session.prompt`),
 * so they are part of the public contract.
 */
export class Api extends HttpApi.make("opencode2")
  .add(HealthGroup)
  .add(LocationGroup)
  .add(AgentGroup)
  .add(SessionGroup)
  .add(SessionPermissionGroup)
  .add(SessionRevertGroup)
  .add(ModelGroup)
  .add(ProviderGroup)
  .add(PermissionRequestGroup)
  .add(SessionQuestionGroup)
  .add(QuestionRequestGroup)
  .add(SessionTodoGroup)
  .add(FsGroup)
  .add(CommandGroup)
  .add(SkillGroup)
  .add(StorageGroup)
  .add(PluginGroup)
  .add(ConfigGroup)
  .add(McpGroup)
  .add(LspGroup)
  .add(EventGroup)
  .middleware(RequestErrors)
  .middleware(Authorization)
  // The event streams' frames are documented by their event schemas (`eventStreamDocument`), registered
  // here so the document can reference them.
  .annotate(HttpApi.AdditionalSchemas, [V2Event, SessionDurableEvent])
  .annotateMerge(
    OpenApi.annotations({
      title: "opencode2",
      version: API_VERSION,
      description:
        "The opencode2 host: upstream OpenCode v2's API, plus the transcript mutation contract, storage operations and plugins.",
    }),
  ) {}
