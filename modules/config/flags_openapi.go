package config

import (
	"platform/api"
	"platform/modules/config/flags"
)

type schema = map[string]any

// flagPaths describes the evaluation routes for the module's OpenAPI
// document.
func flagPaths() map[string]any {
	idParam := schema{"name": "id", "in": "path", "required": true, "schema": schema{"type": "string", "minLength": 1},
		"description": "the flag's slug (its key) or id"}
	one := api.Operation("config.flags.evaluate", FlagsCollection, "Evaluate a flag for a context",
		"Needs the right `"+RightEvaluate+"`. Answers the variant the flag serves to the context and why "+
			"(OpenFeature reasons; docs/config-flags.md). Reads no record: answers come from the flags compiled per customer, "+
			"which see a change at once in the process that made it and within a second in the others.",
		[]any{idParam}, decisionSchema())
	one["requestBody"] = evaluationRequest(false)
	all := api.Operation("config.flags.evaluateAll", FlagsCollection, "Evaluate every enabled flag for a context",
		"Needs the right `"+RightEvaluate+"`. Answers the decisions of every enabled flag (or of those named in flags), "+
			"ordered by flag key; flags that are off are left out.",
		nil, schema{"type": "array", "items": decisionSchema()})
	all["requestBody"] = evaluationRequest(true)
	return map[string]any{
		"/" + FlagsCollection + "/{id}/actions/evaluate": schema{"post": one},
		"/" + FlagsCollection + "/actions/evaluate":      schema{"post": all},
	}
}

func evaluationRequest(bulk bool) schema {
	props := schema{"context": schema{"type": "object",
		"description": "the evaluation context: attributes such as targetingKey, country, plan " +
			"(at most 6 levels deep, 500 values, strings of 4096 bytes)"}}
	if bulk {
		props["flags"] = schema{"type": "array", "maxItems": MaxFlags, "items": schema{"type": "string"},
			"description": "only these flag keys (default: every enabled flag)"}
	}
	return schema{"required": false, "content": schema{"application/json": schema{"schema": schema{
		"type": "object", "additionalProperties": false, "properties": props}}}}
}

func decisionSchema() schema {
	str := schema{"type": "string"}
	return schema{"type": "object", "required": []any{"flagKey", "variant", "value", "reason"}, "properties": schema{
		"flagKey": str, "variant": str,
		"value": schema{"description": "the variant's JSON value"},
		"reason": schema{"type": "string", "enum": []any{string(flags.ReasonTargetingMatch), string(flags.ReasonSplit),
			string(flags.ReasonDefault), string(flags.ReasonDisabled)}},
		"ruleId": schema{"type": "string", "description": "the rule that decided (TARGETING_MATCH, SPLIT)"},
		"bucket": schema{"type": "integer", "minimum": 0, "maximum": flags.Buckets - 1, "description": "the context's rollout bucket (SPLIT)"},
	}}
}
