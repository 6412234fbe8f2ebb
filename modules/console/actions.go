package console

import (
	"encoding/json"
	"net/http"
	"net/url"

	"platform/kernel/resource"
)

// findAction is the declared action of the path the user may run; nil
// after answering otherwise.
func (c *Console) findAction(w http.ResponseWriter, r *http.Request, k *caller, res *resource.Resource) *resource.Action {
	for i := range res.Actions {
		if act := &res.Actions[i]; act.Name == r.PathValue("action") {
			if !k.allows(res.ActionRight(act)) {
				c.forbidden(w, r, k, res.ActionRight(act))
				return nil
			}
			return act
		}
	}
	c.notFound(w, r)
	return nil
}

func (c *Console) actionView(k *caller, res *resource.Resource, act *resource.Action, id string) *formView {
	path := c.recordPath(res, id)
	t := act.Title
	if t == "" {
		t = act.Name
	}
	return &formView{Title: act.Name + ": " + t, Action: path + "/actions/" + act.Name, Cancel: path, Submit: act.Name, CSRF: k.b.CSRF}
}

// actionForm asks for an action's declared body.
func (c *Console) actionForm(w http.ResponseWriter, r *http.Request, k *caller, res *resource.Resource) {
	act := c.findAction(w, r, k, res)
	if act == nil {
		return
	}
	v := c.actionView(k, res, act, r.PathValue("id"))
	v.Fields = formFields(inputFields(k, act.Body), nil, nil)
	c.render(w, r, http.StatusOK, "form", c.page(k, v.Title, &page{Form: v}))
}

// action runs an action with the posted body; its answer shows the record
// again, or the values it shows only once (a rotated secret).
func (c *Console) action(w http.ResponseWriter, r *http.Request, k *caller, res *resource.Resource) {
	act := c.findAction(w, r, k, res)
	if act == nil {
		return
	}
	id := r.PathValue("id")
	fields := inputFields(k, act.Body)
	v := c.actionView(k, res, act, id)
	v.Fields = formFields(fields, nil, r.PostForm)
	a := c.post(w, r, k, v, http.MethodPost, apiPath(res)+"/"+url.PathEscape(id)+"/actions/"+act.Name, fields, false, nil)
	if a == nil {
		return
	}
	rec := a.record()
	once := onceFields(res, rec)
	switch {
	case len(once) > 0:
		c.showOnce(w, r, k, res, rec, once)
	case str(rec["_id"]) == id: // the record as it is now
		http.Redirect(w, r, c.recordPath(res, id), http.StatusSeeOther)
	default: // an answer of its own (a decrypted value, a run started): shown once here
		c.showAnswer(w, r, k, res, act, id, a)
	}
}

// showAnswer shows an action's answer that is not the record.
func (c *Console) showAnswer(w http.ResponseWriter, r *http.Request, k *caller, res *resource.Resource, act *resource.Action, id string, a *answer) {
	var payload any
	_ = json.Unmarshal(a.Payload, &payload)
	v := &recordView{Resource: res, ID: id, Answer: act.Name}
	if m, ok := payload.(map[string]any); ok {
		v.Fields = shownFields(&resource.Resource{}, m)
	} else {
		v.Fields = []shownField{show("answer", payload)}
	}
	v.Links = []navItem{{Title: "Back to the " + title(res), Href: c.recordPath(res, id)}}
	c.render(w, r, http.StatusOK, "result", c.page(k, act.Name, &page{Result: v}))
}

// onceFields are the values of an answer that are never stored (declared
// read-only and virtual: a new client secret), so never shown again.
func onceFields(res *resource.Resource, rec map[string]any) []shownField {
	var out []shownField
	for _, f := range res.Fields {
		if f.ReadOnly && f.Virtual {
			if s, ok := rec[f.Name].(string); ok && s != "" {
				out = append(out, shownField{Name: f.Name, Text: s})
			}
		}
	}
	return out
}

func (c *Console) showOnce(w http.ResponseWriter, r *http.Request, k *caller, res *resource.Resource, rec map[string]any, once []shownField) {
	v := c.recordView(k, res, rec)
	v.Once = once
	var rest []shownField
	for _, f := range v.Fields {
		if !containsName(once, f.Name) {
			rest = append(rest, f)
		}
	}
	v.Fields = rest
	c.render(w, r, http.StatusOK, "result", c.page(k, res.Plural+" "+v.ID, &page{Result: v}))
}

func containsName(fs []shownField, name string) bool {
	for _, f := range fs {
		if f.Name == name {
			return true
		}
	}
	return false
}
