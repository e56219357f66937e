import { useEffect, useState } from "preact/hooks"
import { tokenize } from "./grammar.ts"
import { languageOf, loadedGrammar, loadGrammar } from "./languages.ts"

/**
 * A fenced code block, highlighted once its language's grammar has loaded (plain until then; later
 * blocks of a loaded language highlight on first paint). Tokens are spans with a `tok-<kind>` class:
 * text nodes only, so the code can never become markup.
 */
export const CodeBlock = ({ code, lang }: { code: string; lang: string }) => {
  const language = languageOf(lang)
  const [grammar, setGrammar] = useState(() => (language ? loadedGrammar(language) : undefined))
  useEffect(() => {
    if (!language || grammar?.name === language) return
    let current = true
    void loadGrammar(language).then((loaded) => current && loaded && setGrammar(loaded))
    return () => {
      current = false
    }
  }, [language])
  const active = grammar && language && (loadedGrammar(language) ?? grammar)
  return (
    <div class="code-block" data-testid="code-block">
      {lang && <div class="code-lang">{lang}</div>}
      <pre data-language={language ?? ""} data-highlighted={active ? "true" : "false"}>
        <code>
          {active
            ? tokenize(code, active).map((token) =>
                token.kind ? <span class={`tok-${token.kind}`}>{token.text}</span> : token.text,
              )
            : code}
        </code>
      </pre>
    </div>
  )
}
