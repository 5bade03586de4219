// Golden-data generator for prompt-hf tests. Independent of the Java code: it renders chat
// templates with @huggingface/jinja and tokenizes with @huggingface/tokenizers (both via
// @huggingface/transformers). See README.md in this directory for how it was run.
//
// usage: node generate.mjs <test-resources-dir>   (reads models/*, writes golden/*.json)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { AutoTokenizer, env } from '@huggingface/transformers';

const resources = path.resolve(process.argv[2]);
const here = path.dirname(new URL(import.meta.url).pathname);
const cases = JSON.parse(fs.readFileSync(path.join(here, 'cases.json'), 'utf8'));
const MODELS = ['qwen2_5_vl', 'qwen3_vl', 'llava_1_5'];

// Unpack each model directory (tokenizer.json is stored gzipped) into a temp models root.
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-golden-'));
for (const m of MODELS) {
  const src = path.join(resources, 'models', m);
  const dst = path.join(root, m);
  fs.mkdirSync(dst);
  for (const f of fs.readdirSync(src)) {
    const data = fs.readFileSync(path.join(src, f));
    if (f.endsWith('.gz')) fs.writeFileSync(path.join(dst, f.slice(0, -3)), zlib.gunzipSync(data));
    else fs.writeFileSync(path.join(dst, f), data);
  }
}
env.allowRemoteModels = false;
env.useFSCache = false;
env.localModelPath = root + '/';

// vLLM's chat template resolution for multimodal models: processor template first.
// Python's Jinja2 lexer normalises \r\n and \r to \n in template data and string literals
// (newline_sequence); @huggingface/jinja does not, and the LLaVA chat_template.jinja copy has a
// CRLF inside its '<image>\n' literal, so the source is normalised here as Jinja2 would.
function templateFor(dir) {
  return rawTemplateFor(dir).replace(/\r\n?/g, '\n');
}
function rawTemplateFor(dir) {
  const jinja = path.join(dir, 'chat_template.jinja');
  if (fs.existsSync(jinja)) return fs.readFileSync(jinja, 'utf8');
  const json = path.join(dir, 'chat_template.json');
  if (fs.existsSync(json)) return JSON.parse(fs.readFileSync(json, 'utf8')).chat_template;
  return JSON.parse(fs.readFileSync(path.join(dir, 'tokenizer_config.json'), 'utf8')).chat_template;
}

// vLLM (vllm/entrypoints/chat_utils.py) message normalisation, "openai" content format.
const TEXT = new Set(['text', 'input_text', 'output_text', 'refusal', 'thinking']);
const IMAGE = new Set(['image_url', 'input_image', 'image_embeds', 'image_pil']);
function normalizeMessages(messages) {
  return messages.map((m) => {
    let content = m.content;
    if (content === null || content === undefined) content = [];
    else if (typeof content === 'string') content = [{ type: 'text', text: content }];
    const parts = [];
    for (const p of content) {
      if (typeof p === 'string') { parts.push({ type: 'text', text: p }); continue; }
      if (TEXT.has(p.type)) {
        const t = p.type === 'refusal' ? p.refusal : p.type === 'thinking' ? p.thinking : p.text;
        if (t !== null && t !== undefined) parts.push({ type: 'text', text: t });
      } else if (IMAGE.has(p.type)) parts.push({ type: 'image' });
      else throw new Error('unsupported part ' + p.type);
    }
    const out = { role: m.role, content: parts };
    if (m.role === 'assistant' && Array.isArray(m.tool_calls) && m.tool_calls.length > 0) {
      out.tool_calls = m.tool_calls.map((c) => {
        const copy = JSON.parse(JSON.stringify(c));
        const a = copy.function.arguments;
        if (typeof a === 'string') {
          try { copy.function.arguments = JSON.parse(a); } catch { copy.function.arguments = {}; }
        } else if (a === null || typeof a !== 'object') copy.function.arguments = {};
        return copy;
      });
    }
    if (m.role === 'tool') {
      if ('tool_call_id' in m) out.tool_call_id = m.tool_call_id;
      if (parts.every((p) => p.type === 'text')) out.content = parts.map((p) => p.text).join('\n');
    }
    if (typeof m.name === 'string') out.name = m.name;
    return out;
  });
}
// pydantic model_dump() of vLLM's ChatCompletionToolsParam / FunctionDefinition (extra="allow").
function normalizeTools(tools) {
  if (!tools) return null;
  return tools.map((t) => {
    const f = t.function;
    const fn = { name: f.name, description: f.description ?? null, parameters: f.parameters ?? null };
    for (const [k, v] of Object.entries(f)) if (!(k in fn)) fn[k] = v;
    const out = { type: t.type ?? 'function', function: fn };
    for (const [k, v] of Object.entries(t)) if (!(k in out)) out[k] = v;
    return out;
  });
}

const pkg = (name) => JSON.parse(fs.readFileSync(path.join(here, 'node_modules', name, 'package.json'), 'utf8')).version;
const versions = {
  node: process.version,
  '@huggingface/transformers': pkg('@huggingface/transformers'),
  '@huggingface/tokenizers': pkg('@huggingface/tokenizers'),
  '@huggingface/jinja': pkg('@huggingface/jinja'),
};

const outDir = path.join(resources, 'golden');
fs.mkdirSync(outDir, { recursive: true });
for (const m of MODELS) {
  const tokenizer = await AutoTokenizer.from_pretrained(m, { local_files_only: true });
  const template = templateFor(path.join(root, m));
  const results = [];
  for (const c of cases.chat) {
    const r = c.request;
    const kwargs = { ...(r.chat_template_kwargs ?? {}) };
    let prompt;
    try {
      prompt = tokenizer.apply_chat_template(normalizeMessages(r.messages), {
      chat_template: template,
      tools: normalizeTools(r.tools),
      documents: r.documents ?? null,
      add_generation_prompt: r.add_generation_prompt ?? true,
      continue_final_message: false,
      tokenize: false,
      ...kwargs,
    });
    } catch (e) {
      // @huggingface/jinja cannot apply some filters to strings where Python's jinja2 can
      // (e.g. LLaVA's selectattr over a tool message's string content); such cases are recorded
      // as unrenderable and the Java tests check them against hand-derived Python expectations.
      results.push({ name: c.name, kind: 'chat', request: r, reference_error: String(e.message) });
      continue;
    }
    const ids = tokenizer.encode(prompt, { add_special_tokens: r.add_special_tokens ?? false });
    results.push({ name: c.name, kind: 'chat', request: r, prompt, token_ids: ids });
  }
  for (const c of cases.completion) {
    const r = c.request;
    const text = Array.isArray(r.prompt) ? r.prompt[0] : r.prompt;
    const ids = tokenizer.encode(text, { add_special_tokens: r.add_special_tokens ?? true });
    results.push({ name: c.name, kind: 'completion', request: r, prompt: text, token_ids: ids });
  }
  const doc = { model: m, generated_by: 'prompt-hf/src/test/reference/generate.mjs', versions, cases: results };
  fs.writeFileSync(path.join(outDir, m + '.json'), JSON.stringify(doc, null, 1) + '\n');
  console.log(m, results.length, 'cases');
}
fs.rmSync(root, { recursive: true, force: true });
