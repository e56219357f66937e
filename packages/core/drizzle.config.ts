import { defineConfig } from "drizzle-kit"

export default defineConfig({
  dialect: "sqlite",
  schema: [
    "./src/session/session.sql.ts",
    "./src/session/message.sql.ts",
    "./src/bus/event.sql.ts",
    "./src/permission/permission.sql.ts",
    "./src/maintenance/retention.sql.ts",
    "./src/question/question.sql.ts",
    "./src/todo/todo.sql.ts",
  ],
  out: "./src/storage/migrations",
})
