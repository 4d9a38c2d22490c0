// Package ollamatest runs a scripted fake Ollama server on loopback, so that
// tests of lathe's engine can run without Ollama.
//
// The fake speaks the native API of a v0.17.4 server: POST /api/chat (streamed
// NDJSON or one JSON object), POST /api/show, GET /api/tags, POST /api/pull,
// POST /api/embed, GET /api/ps, GET /api/version and GET /, with the shapes, statuses and
// content types a real server of that version sends. It copies the behaviours a naive client gets
// wrong: arguments as JSON objects, tool calls on the done line, ids missing
// on old servers, index 0 on every gpt-oss call, HTTP errors before output and
// error lines after it, streams that end without done:true (the 30-repeat
// guard), silent truncation and context shifts, text/plain 404 and 405
// answers.
//
// Each real chat request consumes one scripted [Reply]: a model turn (thinking,
// content and tool calls, cut into small token-like chunks) or one of its
// failure modes. Every request is recorded, so a test can assert what the
// client sent back.
//
// Images in messages are recorded decoded ([Request.Images]), with whether
// the model could see them ([Request.ImagesSeen]: it lists [CapVision]); a
// real server drops the images sent to any other model silently, and so
// does the fake.
//
// Chat requests are validated as the real handler does (decode errors, unknown
// models, capabilities, options, context length) before a reply is consumed;
// rejected requests consume nothing.
//
// # Context and prompt cache
//
// The prompt is measured with a fixed rule by default: [RenderPrompt]
// renders it and [EstimateTokens] counts its bytes / 4, rounded up; text
// streams one [SplitPieces] piece a token and a tool call counts its JSON's
// bytes / 4. That is the estimate lathe itself makes, so a test can see no
// estimate error. [WithBytesPerToken] and [Model.BytesPerToken] give the
// tokenizer another density (real ones give 1.9 to 3 bytes a token on
// listings and digits), applied to all of it: prompt_eval_count, the chunks
// and eval_count ([SplitTokens]), truncate:false and the context window.
// [Server.RenderPrompt] and [Server.EstimateTokens] render and count a
// request as the server does for its model.
//
// The context a request runs with is options.num_ctx, else 4096
// ([WithDefaultContext]), capped at the model's ContextLength. A prompt
// longer than that fails with 400 under truncate:false, and otherwise
// succeeds with prompt_eval_count = num_ctx, the real server's only sign of
// silent truncation.
//
// prompt_eval_count is the whole prompt's token count, cached tokens
// included, as both of Ollama's runners report it (num_ctx when truncated).
// The prompt cache is simulated in prompt_eval_duration, so that a test can
// prove a client's requests are append-only: each loaded model remembers the
// rendered prompt of its previous chat request, and only the tokens after the
// common byte prefix with it (the prefix's whole tokens, bytes / 4 rounded
// down by default, are cached; at least 1 token is evaluated) take
// promptTokenTime each. [Request.PromptTokens] and [Request.CachedTokens]
// record both counts. A model with [Model.ThinkSwitch] and the thinking
// capability renders /think or /no_think at the end of its system block, by
// the resolved think value (unset means true), so a client alternating
// think values misses the cache from there. Loading a model anew (see
// Loaded models) empties its cache. [WithoutCacheSimulation] turns the
// cache off; [Reply.PromptEvalCount] overrides the count for one turn.
//
// # Context window during a reply
//
// Prompt and reply share num_ctx. When they fill it, a real runner with
// shift unset or true (the default) shifts the context silently: it keeps
// the first num_keep tokens (4 by default), discards the older half of the
// rest (the system prompt and tools first) and goes on generating, up to
// num_predict, which is 10 × num_ctx when unset. Nothing in any reply tells;
// the fake records each shift in [Request.Shifts], and the simulated prompt
// cache then holds only the num_keep tokens, as the runner's does. With
// shift:false the reply stops exactly at the window: done:true,
// done_reason "length", prompt_eval_count + eval_count == num_ctx.
// A reply longer than the window is a long Content or an [Reply.Endless]
// one, which repeats its content until one of those limits ends it.
//
// # The repeat guard
//
// A real server ends a generation whose tokens repeat more than 30 times in
// a row (llm/server.go, Completion; tokens compared with spaces trimmed, so
// runs of whitespace tokens count too) silently: the 31st identical token
// is the last line, then the stream ends with HTTP 200, no done line and no
// error line (stream:false: one done:false object with the text so far).
// The fake applies the same rule to every reply's chunks, thinking and
// content (the end of thinking and a tool call break a run).
//
// # Model lists
//
// /api/tags lists the models newest first by [Model.ModifiedAt] in whole
// seconds, as ListHandler sorts them; models modified in the same second
// come in a new order on every call (on a real server, Go's map order; here,
// a seeded generator's, so a test sees the same sequence of orders on every
// run). One model's /api/show can fail while /api/tags still lists it
// ([Model.ShowStatus]), and a corrupt model fails to load on chat
// ([Model.LoadError]).
//
// # Remote models
//
// A model with [Model.RemoteHost] is a remote (cloud) model, as /api/create
// with remote_host makes a stub: /api/tags lists it like a local model (with
// remote_model and remote_host), its /api/show has no tensors and, for a
// stub, no "capabilities" key and an empty model_info, and its chat
// requests skip every local check and are proxied: each line comes back
// with remote_model and remote_host, the done line carries only
// total_duration, prompt_eval_count and eval_count, no model is loaded and
// neither the prompt cache, the context window nor the repeat guard apply.
// [WithoutCloud] (OLLAMA_NO_CLOUD=1) makes its show and chat answer 403,
// [WithCloudSignedOut] its chat 401 with a signin_url, and a host outside
// [WithRemotes] 400.
//
// # Loaded models
//
// A chat request loads its model: cold (load_duration [Model.LoadDuration])
// the first time, with another num_ctx, or once its keep_alive (5 minutes
// by default, counted from the end of the reply; 0 unloads it at once) ran
// out on the simulated clock, which [Server.Advance] moves on between
// requests; warm otherwise. /api/ps lists the loaded models with
// [Model.LoadedSize] and [Model.LoadedVRAM] (less VRAM than size is a CPU
// spill).
//
// Everything is deterministic: created_at comes from a simulated clock
// starting at 2026-01-28T18:34:16.110694939Z, durations derive from the
// token counts, and tool call ids from a seeded generator.
//
// POST /api/embed returns deterministic vectors that mean something: texts
// sharing words point the same way (see [Embed]), so that a semantic
// search over them ranks as a real one would, by the words it finds.
// [EmbeddingModel] is an embedding model to install.
//
// Not served (404, as unknown paths): /api/generate, /api/embeddings, /v1/...
package ollamatest
