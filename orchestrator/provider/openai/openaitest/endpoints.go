package openaitest

import (
	"net/http"
)

// created is every model's creation time.
const created = 1769625256

func (s *Server) listModels(w http.ResponseWriter) {
	data := make([]map[string]any, 0, len(s.models))
	for _, m := range s.models {
		e := map[string]any{"id": m.Name, "object": "model", "created": created}
		switch s.kind {
		case VLLM:
			e["owned_by"], e["root"], e["parent"], e["max_model_len"] = "vllm", m.Name, nil, m.Window
			e["permission"] = []any{map[string]any{"id": "modelperm-1", "object": "model_permission", "allow_sampling": true}}
		case LlamaCpp:
			e["owned_by"], e["aliases"], e["tags"] = "llamacpp", []string{m.Name}, []string{}
			e["meta"] = map[string]any{"vocab_type": 2, "n_vocab": 151936, "n_ctx": m.Window, "n_ctx_train": m.Trained,
				"n_embd": 4096, "n_params": 8190735360, "size": 5025615872, "ftype": 15}
		case LMStudio:
			e["owned_by"] = "organization_owner"
		case Ollama:
			e["owned_by"] = "library"
		default:
			e["owned_by"] = "someone"
		}
		data = append(data, e)
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data})
}

// template is a Qwen-style chat template; the tool-use part is what a
// template that handles tools holds.
const template = `{%- for message in messages %}{{- '<|im_start|>' + message.role + '\n' + message.content + '<|im_end|>\n' }}{%- endfor %}`

func (s *Server) props(w http.ResponseWriter) {
	m := s.models[0]
	p := map[string]any{
		"default_generation_settings": map[string]any{"n_ctx": m.Window, "params": map[string]any{"temperature": 0.8, "top_k": 40}},
		"total_slots":                 1, "model_alias": m.Name, "model_path": "/models/" + m.Name + ".gguf",
		"modalities": map[string]any{"vision": false, "audio": false}, "endpoint_slots": true, "endpoint_props": false,
		"endpoint_metrics": false, "chat_template": template, "bos_token": "", "eos_token": "<|im_end|>",
		"build_info": "b7100-1a2b3c4d",
	}
	if !s.noJinja {
		p["chat_template_tool_use"] = "{%- if tools %}" + template + "{%- endif %}"
	}
	writeJSON(w, http.StatusOK, p)
}

// applyTemplate renders the messages as llama.cpp's /apply-template does,
// refusing tools without --jinja as its request parser does.
func (s *Server) applyTemplate(w http.ResponseWriter, body []byte) {
	req, err := translate(body)
	if err != nil {
		s.fail(w, http.StatusBadRequest, err.Error(), "invalid_request_error")
		return
	}
	if s.noJinja && len(req.api.Tools) > 0 {
		s.fail(w, http.StatusInternalServerError, "tools param requires --jinja flag", "server_error")
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"prompt": renderPrompt(req)})
}

func (s *Server) lmStudioModels(w http.ResponseWriter) {
	data := make([]map[string]any, 0, len(s.models))
	for _, m := range s.models {
		typ := m.Type
		if typ == "" {
			typ = "llm"
		}
		e := map[string]any{"id": m.Name, "object": "model", "type": typ, "publisher": "lmstudio-community",
			"arch": "qwen3", "compatibility_type": "gguf", "quantization": "Q4_K_M", "max_context_length": m.Trained}
		if typ != "embeddings" {
			e["capabilities"] = []string{"tool_use"}
		}
		if m.NotLoaded {
			e["state"] = "not-loaded"
		} else {
			e["state"], e["loaded_context_length"] = "loaded", m.Window
		}
		data = append(data, e)
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data})
}
