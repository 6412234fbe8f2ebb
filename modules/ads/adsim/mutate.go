package adsim

import (
	"encoding/json"
	"net/http"
	"strings"

	"platform/modules/ads/adsapi"
)

// mutate applies one create or update of a campaign or an ad group.
func (s *Sim) mutate(w http.ResponseWriter, cid, method string, body []byte) {
	var req struct {
		Operations []struct {
			Create     json.RawMessage `json:"create"`
			Update     json.RawMessage `json:"update"`
			UpdateMask string          `json:"updateMask"`
		} `json:"operations"`
	}
	if json.Unmarshal(body, &req) != nil || len(req.Operations) != 1 {
		apiError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "one operation is expected")
		return
	}
	op := req.Operations[0]
	raw, isCreate := op.Create, len(op.Create) > 0
	if !isCreate {
		raw = op.Update
	}
	in, ok := decodeEntity(method, cid, raw)
	if !ok {
		apiError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "unreadable operation")
		return
	}
	if !isCreate {
		old, found := s.acct(cid).entities[in.ResourceName]
		if !found {
			apiError(w, http.StatusNotFound, "NOT_FOUND", "Resource was not found: "+in.ResourceName)
			return
		}
		in = masked(*old, in, op.UpdateMask)
	} else if in.Name == "" {
		apiError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "name is required")
		return
	}
	s.stats.Mutates++
	e := s.put(cid, in)
	res := adsapi.MutateResult{ResourceName: e.ResourceName}
	if e.Kind == adsapi.KindCampaign {
		res.Campaign = adsapi.ToWireCampaign(e)
	} else {
		res.AdGroup = adsapi.ToWireAdGroup(cid, e)
	}
	writeJSON(w, adsapi.MutateResponse{Results: []adsapi.MutateResult{res}})
}

func decodeEntity(method, cid string, raw json.RawMessage) (adsapi.Entity, bool) {
	kind := adsapi.KindCampaign
	var row adsapi.Row
	if strings.HasPrefix(method, "adGroups") {
		kind = adsapi.KindAdGroup
		row.AdGroup = &adsapi.WireAdGroup{}
		if json.Unmarshal(raw, row.AdGroup) != nil {
			return adsapi.Entity{}, false
		}
	} else {
		row.Campaign = &adsapi.WireCampaign{}
		if json.Unmarshal(raw, row.Campaign) != nil {
			return adsapi.Entity{}, false
		}
	}
	e, err := adsapi.FromRow(kind, cid, row)
	if row.Campaign != nil && row.Campaign.ID == 0 || row.AdGroup != nil && row.AdGroup.ID == 0 {
		e.ID = ""
	}
	if e.ResourceName != "" {
		e.ID = adsapi.LastID(e.ResourceName)
	}
	return e, err == nil
}

// masked is old with the fields of the update mask taken from in.
func masked(old, in adsapi.Entity, mask string) adsapi.Entity {
	for _, f := range strings.Split(mask, ",") {
		switch strings.TrimSpace(f) {
		case "name":
			old.Name = in.Name
		case "status":
			old.Status = in.Status
		case "advertisingChannelType":
			old.ChannelType = in.ChannelType
		case "startDate":
			old.StartDate = in.StartDate
		case "endDate":
			old.EndDate = in.EndDate
		case "budgetAmountMicros":
			old.BudgetMicros = in.BudgetMicros
		case "cpcBidMicros":
			old.CpcBidMicros = in.CpcBidMicros
		}
	}
	return old
}
