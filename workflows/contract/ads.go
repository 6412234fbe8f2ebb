package contract

import "time"

// Advertising (modules/ads, docs/ads.md). AdsSync copies one connected
// account's campaigns, ad groups, keywords and daily metrics from the ad
// platform, a page per activity, so a killed worker resumes at the page
// it was on; a schedule per connection starts it. AdsPush sends one
// campaign or ad group changed through the API to the platform.
const (
	WorkflowAdsSync = "AdsSync"
	WorkflowAdsPush = "AdsPush"

	// ActivityAdsSyncBegin plans a run: the change cursor and the days of
	// metrics to read; Skip when the connection cannot sync.
	ActivityAdsSyncBegin = "AdsSyncBegin"
	// ActivityAdsSyncPage copies one page of one stage.
	ActivityAdsSyncPage = "AdsSyncPage"
	// ActivityAdsSyncFinish records the outcome and moves the cursor.
	ActivityAdsSyncFinish = "AdsSyncFinish"
	// ActivityAdsPushRecord pushes a record, or reports a conflict on it.
	ActivityAdsPushRecord = "AdsPushRecord"
	// ActivityAdsPushFailed records a push that failed for good.
	ActivityAdsPushFailed = "AdsPushFailed"

	// ErrTypeAdsRevoked: the platform refused the refresh token; only a
	// new authorization helps, so it is never retried.
	ErrTypeAdsRevoked = "AdsRevoked"
	// ErrTypeAdsRejected: the platform rejected the request itself.
	ErrTypeAdsRejected = "AdsRejected"
)

// The stages of a sync, in order: entities before the metrics that name
// them.
const (
	AdsStageCampaigns     = "campaigns"
	AdsStageAdGroups      = "adgroups"
	AdsStageKeywords      = "keywords"
	AdsStageCampaignDays  = "metrics-campaign"
	AdsStageAdGroupDays   = "metrics-adgroup"
	AdsStageKeywordDays   = "metrics-keyword"
	AdsStageKeywordTotals = "keyword-performance"
)

// AdsStages lists the stages in the order a run takes them.
var AdsStages = []string{AdsStageCampaigns, AdsStageAdGroups, AdsStageKeywords, AdsStageCampaignDays, AdsStageAdGroupDays, AdsStageKeywordDays, AdsStageKeywordTotals}

func init() {
	WorkflowKinds[WorkflowAdsSync] = KindSystem
	WorkflowKinds[WorkflowAdsPush] = KindSystem
}

// AdsSyncWorkflowID is the one sync of a connection at a time: a tick
// while a run is under way is skipped (the schedule's overlap policy).
func AdsSyncWorkflowID(customer, connection string) string {
	return "ads-sync-" + customer + "-" + connection
}

// AdsPushWorkflowID is the push of one version of a record.
func AdsPushWorkflowID(customer, plural, record, version string) string {
	return "ads-push-" + customer + "-" + plural + "-" + record + "-" + version
}

// AdsSyncInput starts or continues a sync of the connection of the
// customer in the context. A run that continued as new carries its plan,
// the stage and the page it is at, and what it counted so far.
type AdsSyncInput struct {
	ConnectionID string
	Plan         *AdsSyncPlan
	Stage        int
	PageToken    string
	Progress     AdsSyncProgress
}

// AdsSyncBeginInput names the connection to plan a run for.
type AdsSyncBeginInput struct {
	ConnectionID string
}

// AdsSyncPlan is one run's plan: entities changed since Since (zero: all),
// metrics of the days From to To.
type AdsSyncPlan struct {
	SyncID  string
	Since   time.Time
	From    string
	To      string
	Skip    bool
	Started time.Time
}

// AdsSyncProgress counts a run's rows and keeps the latest change time seen.
type AdsSyncProgress struct {
	Entities    int
	MetricRows  int
	Conflicts   int
	MaxModified time.Time
}

// AdsSyncPageInput is one page of one stage.
type AdsSyncPageInput struct {
	ConnectionID string
	Plan         AdsSyncPlan
	Stage        string
	PageToken    string
}

// AdsSyncPageResult is what the page copied and where the next one starts.
type AdsSyncPageResult struct {
	Next        string
	Entities    int
	MetricRows  int
	Conflicts   int
	MaxModified time.Time
}

// AdsSyncFinishInput is a run's outcome: Failure is empty on success;
// Revoked when the refresh token was refused.
type AdsSyncFinishInput struct {
	ConnectionID string
	Plan         AdsSyncPlan
	Progress     AdsSyncProgress
	Failure      string
	Revoked      bool
}

// AdsPushInput names a record of campaigns or adgroups and the version
// (its updatedAt) whose change is pushed.
type AdsPushInput struct {
	Plural   string
	RecordID string
	Version  string
}

// AdsPushFailedInput is a push that failed for good.
type AdsPushFailedInput struct {
	Plural   string
	RecordID string
	Version  string
	Failure  string
}
