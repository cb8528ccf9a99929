import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

// Custom search attributes that ops teams filter on in the Temporal UI, e.g.
// `JobState = "RUNNING" AND WorkspaceId = "ws_…"`. The dev server registers them at start.
export const JobStateKey = defineSearchAttributeKey('JobState', SearchAttributeType.KEYWORD);
export const WorkspaceIdKey = defineSearchAttributeKey('WorkspaceId', SearchAttributeType.KEYWORD);
export const AgentIdKey = defineSearchAttributeKey('AgentId', SearchAttributeType.KEYWORD);
export const JobTypeKey = defineSearchAttributeKey('JobType', SearchAttributeType.KEYWORD);
export const LabelsKey = defineSearchAttributeKey('Labels', SearchAttributeType.KEYWORD_LIST);
/** On webhook delivery runs: `WebhookId = "wh_…"` lists every lane of one endpoint. */
export const WebhookIdKey = defineSearchAttributeKey('WebhookId', SearchAttributeType.KEYWORD);

/** Set by Temporal on a run a schedule started: the time it was due (the meter's window end). */
export const ScheduledStartTimeKey = defineSearchAttributeKey(
  'TemporalScheduledStartTime',
  SearchAttributeType.DATETIME,
);

/** Name and server-side type of each key, as `temporal server start-dev --search-attribute` takes them. */
export const SEARCH_ATTRIBUTE_REGISTRATIONS: ReadonlyArray<{ name: string; type: 'Keyword' | 'KeywordList' }> = [
  { name: JobStateKey.name, type: 'Keyword' },
  { name: WorkspaceIdKey.name, type: 'Keyword' },
  { name: AgentIdKey.name, type: 'Keyword' },
  { name: JobTypeKey.name, type: 'Keyword' },
  { name: LabelsKey.name, type: 'KeywordList' },
  { name: WebhookIdKey.name, type: 'Keyword' },
];
