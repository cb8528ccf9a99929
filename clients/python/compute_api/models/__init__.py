"""Contains all the data models used in inputs/outputs"""

from .access_token import AccessToken
from .access_token_role import AccessTokenRole
from .agent import Agent
from .agent_labels import AgentLabels
from .agent_state import AgentState
from .assigned_job import AssignedJob
from .assigned_job_artifacts import AssignedJobArtifacts
from .assigned_job_env import AssignedJobEnv
from .assigned_job_labels import AssignedJobLabels
from .assigned_job_resources import AssignedJobResources
from .attempt import Attempt
from .audit_entry import AuditEntry
from .audit_entry_actor import AuditEntryActor
from .audit_entry_actor_type import AuditEntryActorType
from .audit_entry_details import AuditEntryDetails
from .audit_entry_outcome import AuditEntryOutcome
from .audit_entry_target import AuditEntryTarget
from .checkout_session import CheckoutSession
from .delete_v0_agents_id_x_compute_api_version import (
    DeleteV0AgentsIdXComputeAPIVersion,
)
from .delete_v0_tokens_id_x_compute_api_version import (
    DeleteV0TokensIdXComputeAPIVersion,
)
from .delete_v0_webhooks_id_x_compute_api_version import (
    DeleteV0WebhooksIdXComputeAPIVersion,
)
from .delete_v0_workspaces_id_members_user_id_x_compute_api_version import (
    DeleteV0WorkspacesIdMembersUserIdXComputeAPIVersion,
)
from .error_envelope import ErrorEnvelope
from .error_envelope_details import ErrorEnvelopeDetails
from .error_envelope_status import ErrorEnvelopeStatus
from .get_api_compute_jobs_job_id_logs_follow import GetApiComputeJobsJobIdLogsFollow
from .get_v0_agents_id_x_compute_api_version import GetV0AgentsIdXComputeAPIVersion
from .get_v0_agents_response_200 import GetV0AgentsResponse200
from .get_v0_agents_x_compute_api_version import GetV0AgentsXComputeAPIVersion
from .get_v0_billing_invoices_response_200 import GetV0BillingInvoicesResponse200
from .get_v0_billing_invoices_x_compute_api_version import (
    GetV0BillingInvoicesXComputeAPIVersion,
)
from .get_v0_billing_limits_x_compute_api_version import (
    GetV0BillingLimitsXComputeAPIVersion,
)
from .get_v0_billing_usage_x_compute_api_version import (
    GetV0BillingUsageXComputeAPIVersion,
)
from .get_v0_jobs_id_attempts_response_200 import GetV0JobsIdAttemptsResponse200
from .get_v0_jobs_id_attempts_x_compute_api_version import (
    GetV0JobsIdAttemptsXComputeAPIVersion,
)
from .get_v0_jobs_id_logs_follow import GetV0JobsIdLogsFollow
from .get_v0_jobs_id_logs_response_200 import GetV0JobsIdLogsResponse200
from .get_v0_jobs_id_logs_response_200_lines_item import (
    GetV0JobsIdLogsResponse200LinesItem,
)
from .get_v0_jobs_id_logs_response_200_lines_item_stream import (
    GetV0JobsIdLogsResponse200LinesItemStream,
)
from .get_v0_jobs_id_logs_response_200_lines_item_truncated import (
    GetV0JobsIdLogsResponse200LinesItemTruncated,
)
from .get_v0_jobs_id_logs_x_compute_api_version import GetV0JobsIdLogsXComputeAPIVersion
from .get_v0_jobs_id_x_compute_api_version import GetV0JobsIdXComputeAPIVersion
from .get_v0_jobs_response_200 import GetV0JobsResponse200
from .get_v0_jobs_state_item import GetV0JobsStateItem
from .get_v0_jobs_x_compute_api_version import GetV0JobsXComputeAPIVersion
from .get_v0_session_x_compute_api_version import GetV0SessionXComputeAPIVersion
from .get_v0_tokens_response_200 import GetV0TokensResponse200
from .get_v0_tokens_x_compute_api_version import GetV0TokensXComputeAPIVersion
from .get_v0_webhooks_id_deliveries_response_200 import (
    GetV0WebhooksIdDeliveriesResponse200,
)
from .get_v0_webhooks_id_deliveries_status import GetV0WebhooksIdDeliveriesStatus
from .get_v0_webhooks_id_deliveries_x_compute_api_version import (
    GetV0WebhooksIdDeliveriesXComputeAPIVersion,
)
from .get_v0_webhooks_id_x_compute_api_version import GetV0WebhooksIdXComputeAPIVersion
from .get_v0_webhooks_response_200 import GetV0WebhooksResponse200
from .get_v0_webhooks_x_compute_api_version import GetV0WebhooksXComputeAPIVersion
from .get_v0_workspaces_id_audit_format import GetV0WorkspacesIdAuditFormat
from .get_v0_workspaces_id_audit_response_200 import GetV0WorkspacesIdAuditResponse200
from .get_v0_workspaces_id_audit_x_compute_api_version import (
    GetV0WorkspacesIdAuditXComputeAPIVersion,
)
from .get_v0_workspaces_id_members_response_200 import (
    GetV0WorkspacesIdMembersResponse200,
)
from .get_v0_workspaces_id_members_x_compute_api_version import (
    GetV0WorkspacesIdMembersXComputeAPIVersion,
)
from .get_v0_workspaces_id_x_compute_api_version import (
    GetV0WorkspacesIdXComputeAPIVersion,
)
from .get_v0_workspaces_response_200 import GetV0WorkspacesResponse200
from .get_v0_workspaces_x_compute_api_version import GetV0WorkspacesXComputeAPIVersion
from .invoice import Invoice
from .invoice_line import InvoiceLine
from .invoice_line_kind import InvoiceLineKind
from .invoice_status import InvoiceStatus
from .job import Job
from .job_a import JobA
from .job_a_artifacts_item import JobAArtifactsItem
from .job_a_env import JobAEnv
from .job_a_failure_reason_type_0 import JobAFailureReasonType0
from .job_a_labels import JobALabels
from .job_a_pool import JobAPool
from .job_a_retry import JobARetry
from .job_a_selector import JobASelector
from .job_a_state import JobAState
from .job_artifacts_item import JobArtifactsItem
from .job_env import JobEnv
from .job_failure_reason_type_0 import JobFailureReasonType0
from .job_labels import JobLabels
from .job_manifest import JobManifest
from .job_manifest_artifacts import JobManifestArtifacts
from .job_manifest_env import JobManifestEnv
from .job_manifest_pool import JobManifestPool
from .job_manifest_resources import JobManifestResources
from .job_manifest_retry import JobManifestRetry
from .job_manifest_selector import JobManifestSelector
from .job_pool import JobPool
from .job_retry import JobRetry
from .job_selector import JobSelector
from .job_state import JobState
from .labels import Labels
from .limits import Limits
from .limits_pending_type_0 import LimitsPendingType0
from .member import Member
from .member_role import MemberRole
from .node_a import NodeA
from .node_a_capacity_type_0 import NodeACapacityType0
from .node_a_labels import NodeALabels
from .node_a_state import NodeAState
from .patch_v0_billing_limits_body import PatchV0BillingLimitsBody
from .patch_v0_billing_limits_x_compute_api_version import (
    PatchV0BillingLimitsXComputeAPIVersion,
)
from .patch_v0_workspaces_id_body import PatchV0WorkspacesIdBody
from .patch_v0_workspaces_id_members_user_id_body import (
    PatchV0WorkspacesIdMembersUserIdBody,
)
from .patch_v0_workspaces_id_members_user_id_body_role import (
    PatchV0WorkspacesIdMembersUserIdBodyRole,
)
from .patch_v0_workspaces_id_members_user_id_x_compute_api_version import (
    PatchV0WorkspacesIdMembersUserIdXComputeAPIVersion,
)
from .patch_v0_workspaces_id_x_compute_api_version import (
    PatchV0WorkspacesIdXComputeAPIVersion,
)
from .plan import Plan
from .plan_id import PlanId
from .plan_prices import PlanPrices
from .post_api_auth_request_otp_body import PostApiAuthRequestOtpBody
from .post_api_auth_request_otp_response_200 import PostApiAuthRequestOtpResponse200
from .post_api_auth_request_otp_response_200_payload import (
    PostApiAuthRequestOtpResponse200Payload,
)
from .post_api_auth_request_otp_response_200_status import (
    PostApiAuthRequestOtpResponse200Status,
)
from .post_api_auth_session_body import PostApiAuthSessionBody
from .post_api_auth_session_response_200 import PostApiAuthSessionResponse200
from .post_api_auth_session_response_200_payload import (
    PostApiAuthSessionResponse200Payload,
)
from .post_api_auth_session_response_200_payload_user import (
    PostApiAuthSessionResponse200PayloadUser,
)
from .post_api_auth_session_response_200_status import (
    PostApiAuthSessionResponse200Status,
)
from .post_api_auth_session_x_compute_csrf import PostApiAuthSessionXComputeCSRF
from .post_api_auth_sign_out_body import PostApiAuthSignOutBody
from .post_api_auth_sign_out_response_200 import PostApiAuthSignOutResponse200
from .post_api_auth_sign_out_response_200_payload import (
    PostApiAuthSignOutResponse200Payload,
)
from .post_api_auth_sign_out_response_200_status import (
    PostApiAuthSignOutResponse200Status,
)
from .post_api_auth_sign_out_x_compute_csrf import PostApiAuthSignOutXComputeCSRF
from .post_api_auth_verify_otp_body import PostApiAuthVerifyOtpBody
from .post_api_auth_verify_otp_response_200 import PostApiAuthVerifyOtpResponse200
from .post_api_auth_verify_otp_response_200_payload import (
    PostApiAuthVerifyOtpResponse200Payload,
)
from .post_api_auth_verify_otp_response_200_payload_user import (
    PostApiAuthVerifyOtpResponse200PayloadUser,
)
from .post_api_auth_verify_otp_response_200_status import (
    PostApiAuthVerifyOtpResponse200Status,
)
from .post_api_compute_api_keys_create_body import PostApiComputeApiKeysCreateBody
from .post_api_compute_api_keys_create_body_kind import (
    PostApiComputeApiKeysCreateBodyKind,
)
from .post_api_compute_api_keys_create_body_quotas import (
    PostApiComputeApiKeysCreateBodyQuotas,
)
from .post_api_compute_api_keys_create_response_200 import (
    PostApiComputeApiKeysCreateResponse200,
)
from .post_api_compute_api_keys_create_response_200_payload import (
    PostApiComputeApiKeysCreateResponse200Payload,
)
from .post_api_compute_api_keys_create_response_200_payload_kind import (
    PostApiComputeApiKeysCreateResponse200PayloadKind,
)
from .post_api_compute_api_keys_create_response_200_payload_quotas_type_0 import (
    PostApiComputeApiKeysCreateResponse200PayloadQuotasType0,
)
from .post_api_compute_api_keys_create_response_200_status import (
    PostApiComputeApiKeysCreateResponse200Status,
)
from .post_api_compute_api_keys_list_body import PostApiComputeApiKeysListBody
from .post_api_compute_api_keys_list_response_200 import (
    PostApiComputeApiKeysListResponse200,
)
from .post_api_compute_api_keys_list_response_200_payload import (
    PostApiComputeApiKeysListResponse200Payload,
)
from .post_api_compute_api_keys_list_response_200_payload_keys_item import (
    PostApiComputeApiKeysListResponse200PayloadKeysItem,
)
from .post_api_compute_api_keys_list_response_200_payload_keys_item_kind import (
    PostApiComputeApiKeysListResponse200PayloadKeysItemKind,
)
from .post_api_compute_api_keys_list_response_200_payload_keys_item_quotas_type_0 import (
    PostApiComputeApiKeysListResponse200PayloadKeysItemQuotasType0,
)
from .post_api_compute_api_keys_list_response_200_status import (
    PostApiComputeApiKeysListResponse200Status,
)
from .post_api_compute_api_keys_revoke_body import PostApiComputeApiKeysRevokeBody
from .post_api_compute_api_keys_revoke_response_200 import (
    PostApiComputeApiKeysRevokeResponse200,
)
from .post_api_compute_api_keys_revoke_response_200_payload import (
    PostApiComputeApiKeysRevokeResponse200Payload,
)
from .post_api_compute_api_keys_revoke_response_200_payload_kind import (
    PostApiComputeApiKeysRevokeResponse200PayloadKind,
)
from .post_api_compute_api_keys_revoke_response_200_payload_quotas_type_0 import (
    PostApiComputeApiKeysRevokeResponse200PayloadQuotasType0,
)
from .post_api_compute_api_keys_revoke_response_200_status import (
    PostApiComputeApiKeysRevokeResponse200Status,
)
from .post_api_compute_billing_checkout_create_body import (
    PostApiComputeBillingCheckoutCreateBody,
)
from .post_api_compute_billing_checkout_create_response_200 import (
    PostApiComputeBillingCheckoutCreateResponse200,
)
from .post_api_compute_billing_checkout_create_response_200_status import (
    PostApiComputeBillingCheckoutCreateResponse200Status,
)
from .post_api_compute_billing_plans_list_body import PostApiComputeBillingPlansListBody
from .post_api_compute_billing_plans_list_response_200 import (
    PostApiComputeBillingPlansListResponse200,
)
from .post_api_compute_billing_plans_list_response_200_payload import (
    PostApiComputeBillingPlansListResponse200Payload,
)
from .post_api_compute_billing_plans_list_response_200_status import (
    PostApiComputeBillingPlansListResponse200Status,
)
from .post_api_compute_billing_stripe_events_body import (
    PostApiComputeBillingStripeEventsBody,
)
from .post_api_compute_billing_stripe_events_response_200 import (
    PostApiComputeBillingStripeEventsResponse200,
)
from .post_api_compute_billing_stripe_events_response_200_payload import (
    PostApiComputeBillingStripeEventsResponse200Payload,
)
from .post_api_compute_billing_stripe_events_response_200_payload_outcome import (
    PostApiComputeBillingStripeEventsResponse200PayloadOutcome,
)
from .post_api_compute_billing_stripe_events_response_200_status import (
    PostApiComputeBillingStripeEventsResponse200Status,
)
from .post_api_compute_billing_subscription_body import (
    PostApiComputeBillingSubscriptionBody,
)
from .post_api_compute_billing_subscription_response_200 import (
    PostApiComputeBillingSubscriptionResponse200,
)
from .post_api_compute_billing_subscription_response_200_status import (
    PostApiComputeBillingSubscriptionResponse200Status,
)
from .post_api_compute_jobs_artifacts_presign_download_body import (
    PostApiComputeJobsArtifactsPresignDownloadBody,
)
from .post_api_compute_jobs_artifacts_presign_download_response_200 import (
    PostApiComputeJobsArtifactsPresignDownloadResponse200,
)
from .post_api_compute_jobs_artifacts_presign_download_response_200_payload import (
    PostApiComputeJobsArtifactsPresignDownloadResponse200Payload,
)
from .post_api_compute_jobs_artifacts_presign_download_response_200_payload_method import (
    PostApiComputeJobsArtifactsPresignDownloadResponse200PayloadMethod,
)
from .post_api_compute_jobs_artifacts_presign_download_response_200_status import (
    PostApiComputeJobsArtifactsPresignDownloadResponse200Status,
)
from .post_api_compute_jobs_artifacts_presign_upload_body import (
    PostApiComputeJobsArtifactsPresignUploadBody,
)
from .post_api_compute_jobs_artifacts_presign_upload_response_200 import (
    PostApiComputeJobsArtifactsPresignUploadResponse200,
)
from .post_api_compute_jobs_artifacts_presign_upload_response_200_payload import (
    PostApiComputeJobsArtifactsPresignUploadResponse200Payload,
)
from .post_api_compute_jobs_artifacts_presign_upload_response_200_payload_method import (
    PostApiComputeJobsArtifactsPresignUploadResponse200PayloadMethod,
)
from .post_api_compute_jobs_artifacts_presign_upload_response_200_status import (
    PostApiComputeJobsArtifactsPresignUploadResponse200Status,
)
from .post_api_compute_jobs_cancel_body import PostApiComputeJobsCancelBody
from .post_api_compute_jobs_cancel_response_200 import (
    PostApiComputeJobsCancelResponse200,
)
from .post_api_compute_jobs_cancel_response_200_status import (
    PostApiComputeJobsCancelResponse200Status,
)
from .post_api_compute_jobs_list_body import PostApiComputeJobsListBody
from .post_api_compute_jobs_list_response_200 import PostApiComputeJobsListResponse200
from .post_api_compute_jobs_list_response_200_payload import (
    PostApiComputeJobsListResponse200Payload,
)
from .post_api_compute_jobs_list_response_200_status import (
    PostApiComputeJobsListResponse200Status,
)
from .post_api_compute_jobs_retrieve_body import PostApiComputeJobsRetrieveBody
from .post_api_compute_jobs_retrieve_response_200 import (
    PostApiComputeJobsRetrieveResponse200,
)
from .post_api_compute_jobs_retrieve_response_200_status import (
    PostApiComputeJobsRetrieveResponse200Status,
)
from .post_api_compute_jobs_retry_body import PostApiComputeJobsRetryBody
from .post_api_compute_jobs_retry_response_200 import PostApiComputeJobsRetryResponse200
from .post_api_compute_jobs_retry_response_200_status import (
    PostApiComputeJobsRetryResponse200Status,
)
from .post_api_compute_jobs_submit_response_200 import (
    PostApiComputeJobsSubmitResponse200,
)
from .post_api_compute_jobs_submit_response_200_payload import (
    PostApiComputeJobsSubmitResponse200Payload,
)
from .post_api_compute_jobs_submit_response_200_payload_state import (
    PostApiComputeJobsSubmitResponse200PayloadState,
)
from .post_api_compute_jobs_submit_response_200_status import (
    PostApiComputeJobsSubmitResponse200Status,
)
from .post_api_compute_nodes_drain_body import PostApiComputeNodesDrainBody
from .post_api_compute_nodes_drain_response_200 import (
    PostApiComputeNodesDrainResponse200,
)
from .post_api_compute_nodes_drain_response_200_status import (
    PostApiComputeNodesDrainResponse200Status,
)
from .post_api_compute_nodes_heartbeat_body import PostApiComputeNodesHeartbeatBody
from .post_api_compute_nodes_heartbeat_response_200 import (
    PostApiComputeNodesHeartbeatResponse200,
)
from .post_api_compute_nodes_heartbeat_response_200_payload import (
    PostApiComputeNodesHeartbeatResponse200Payload,
)
from .post_api_compute_nodes_heartbeat_response_200_status import (
    PostApiComputeNodesHeartbeatResponse200Status,
)
from .post_api_compute_nodes_list_body import PostApiComputeNodesListBody
from .post_api_compute_nodes_list_response_200 import PostApiComputeNodesListResponse200
from .post_api_compute_nodes_list_response_200_payload import (
    PostApiComputeNodesListResponse200Payload,
)
from .post_api_compute_nodes_list_response_200_status import (
    PostApiComputeNodesListResponse200Status,
)
from .post_api_compute_nodes_logs_body import PostApiComputeNodesLogsBody
from .post_api_compute_nodes_logs_body_lines_item import (
    PostApiComputeNodesLogsBodyLinesItem,
)
from .post_api_compute_nodes_logs_body_lines_item_stream import (
    PostApiComputeNodesLogsBodyLinesItemStream,
)
from .post_api_compute_nodes_logs_response_200 import PostApiComputeNodesLogsResponse200
from .post_api_compute_nodes_logs_response_200_payload import (
    PostApiComputeNodesLogsResponse200Payload,
)
from .post_api_compute_nodes_logs_response_200_status import (
    PostApiComputeNodesLogsResponse200Status,
)
from .post_api_compute_nodes_poll_body import PostApiComputeNodesPollBody
from .post_api_compute_nodes_poll_response_200 import PostApiComputeNodesPollResponse200
from .post_api_compute_nodes_poll_response_200_payload import (
    PostApiComputeNodesPollResponse200Payload,
)
from .post_api_compute_nodes_poll_response_200_status import (
    PostApiComputeNodesPollResponse200Status,
)
from .post_api_compute_nodes_register_body import PostApiComputeNodesRegisterBody
from .post_api_compute_nodes_register_body_capabilities import (
    PostApiComputeNodesRegisterBodyCapabilities,
)
from .post_api_compute_nodes_register_body_capacity import (
    PostApiComputeNodesRegisterBodyCapacity,
)
from .post_api_compute_nodes_register_response_200 import (
    PostApiComputeNodesRegisterResponse200,
)
from .post_api_compute_nodes_register_response_200_payload import (
    PostApiComputeNodesRegisterResponse200Payload,
)
from .post_api_compute_nodes_register_response_200_status import (
    PostApiComputeNodesRegisterResponse200Status,
)
from .post_api_compute_nodes_result_body import PostApiComputeNodesResultBody
from .post_api_compute_nodes_result_body_usage import PostApiComputeNodesResultBodyUsage
from .post_api_compute_nodes_result_response_200 import (
    PostApiComputeNodesResultResponse200,
)
from .post_api_compute_nodes_result_response_200_status import (
    PostApiComputeNodesResultResponse200Status,
)
from .post_api_compute_nodes_rotate_key_body import PostApiComputeNodesRotateKeyBody
from .post_api_compute_nodes_rotate_key_response_200 import (
    PostApiComputeNodesRotateKeyResponse200,
)
from .post_api_compute_nodes_rotate_key_response_200_payload import (
    PostApiComputeNodesRotateKeyResponse200Payload,
)
from .post_api_compute_nodes_rotate_key_response_200_status import (
    PostApiComputeNodesRotateKeyResponse200Status,
)
from .post_v0_agents_iddrain_body import PostV0AgentsIddrainBody
from .post_v0_agents_iddrain_x_compute_api_version import (
    PostV0AgentsIddrainXComputeAPIVersion,
)
from .post_v0_jobs_idcancel_x_compute_api_version import (
    PostV0JobsIdcancelXComputeAPIVersion,
)
from .post_v0_jobs_x_compute_api_version import PostV0JobsXComputeAPIVersion
from .post_v0_tokens_body import PostV0TokensBody
from .post_v0_tokens_body_role import PostV0TokensBodyRole
from .post_v0_tokens_response_201 import PostV0TokensResponse201
from .post_v0_tokens_response_201_role import PostV0TokensResponse201Role
from .post_v0_tokens_x_compute_api_version import PostV0TokensXComputeAPIVersion
from .post_v0_webhooks_body import PostV0WebhooksBody
from .post_v0_webhooks_body_events_item import PostV0WebhooksBodyEventsItem
from .post_v0_webhooks_id_deliveries_delivery_idredeliver_response_202 import (
    PostV0WebhooksIdDeliveriesDeliveryIdredeliverResponse202,
)
from .post_v0_webhooks_id_deliveries_delivery_idredeliver_x_compute_api_version import (
    PostV0WebhooksIdDeliveriesDeliveryIdredeliverXComputeAPIVersion,
)
from .post_v0_webhooks_idrotate_secret_response_200 import (
    PostV0WebhooksIdrotateSecretResponse200,
)
from .post_v0_webhooks_idrotate_secret_x_compute_api_version import (
    PostV0WebhooksIdrotateSecretXComputeAPIVersion,
)
from .post_v0_webhooks_response_201 import PostV0WebhooksResponse201
from .post_v0_webhooks_response_201_events_item import (
    PostV0WebhooksResponse201EventsItem,
)
from .post_v0_webhooks_x_compute_api_version import PostV0WebhooksXComputeAPIVersion
from .post_v0_workspaces_body import PostV0WorkspacesBody
from .post_v0_workspaces_id_members_body import PostV0WorkspacesIdMembersBody
from .post_v0_workspaces_id_members_body_role import PostV0WorkspacesIdMembersBodyRole
from .post_v0_workspaces_id_members_x_compute_api_version import (
    PostV0WorkspacesIdMembersXComputeAPIVersion,
)
from .post_v0_workspaces_x_compute_api_version import PostV0WorkspacesXComputeAPIVersion
from .problem import Problem
from .problem_details import ProblemDetails
from .problem_errors_item import ProblemErrorsItem
from .put_api_compute_artifacts_upload_job_id_id_response_200 import (
    PutApiComputeArtifactsUploadJobIdIdResponse200,
)
from .put_api_compute_artifacts_upload_job_id_id_response_200_payload import (
    PutApiComputeArtifactsUploadJobIdIdResponse200Payload,
)
from .put_api_compute_artifacts_upload_job_id_id_response_200_status import (
    PutApiComputeArtifactsUploadJobIdIdResponse200Status,
)
from .removed_member import RemovedMember
from .removed_member_revoked import RemovedMemberRevoked
from .removed_member_role import RemovedMemberRole
from .session import Session
from .session_user import SessionUser
from .sse_log_event import SseLogEvent
from .sse_log_event_event import SseLogEventEvent
from .submitted_job import SubmittedJob
from .submitted_job_state import SubmittedJobState
from .subscription import Subscription
from .subscription_plan import SubscriptionPlan
from .subscription_status import SubscriptionStatus
from .usage import Usage
from .usage_managed import UsageManaged
from .usage_self import UsageSelf
from .webhook import Webhook
from .webhook_delivery import WebhookDelivery
from .webhook_delivery_event_type import WebhookDeliveryEventType
from .webhook_delivery_status import WebhookDeliveryStatus
from .webhook_events_item import WebhookEventsItem
from .workspace import Workspace
from .workspace_plan import WorkspacePlan
from .workspace_role import WorkspaceRole

__all__ = (
    "AccessToken",
    "AccessTokenRole",
    "Agent",
    "AgentLabels",
    "AgentState",
    "AssignedJob",
    "AssignedJobArtifacts",
    "AssignedJobEnv",
    "AssignedJobLabels",
    "AssignedJobResources",
    "Attempt",
    "AuditEntry",
    "AuditEntryActor",
    "AuditEntryActorType",
    "AuditEntryDetails",
    "AuditEntryOutcome",
    "AuditEntryTarget",
    "CheckoutSession",
    "DeleteV0AgentsIdXComputeAPIVersion",
    "DeleteV0TokensIdXComputeAPIVersion",
    "DeleteV0WebhooksIdXComputeAPIVersion",
    "DeleteV0WorkspacesIdMembersUserIdXComputeAPIVersion",
    "ErrorEnvelope",
    "ErrorEnvelopeDetails",
    "ErrorEnvelopeStatus",
    "GetApiComputeJobsJobIdLogsFollow",
    "GetV0AgentsIdXComputeAPIVersion",
    "GetV0AgentsResponse200",
    "GetV0AgentsXComputeAPIVersion",
    "GetV0BillingInvoicesResponse200",
    "GetV0BillingInvoicesXComputeAPIVersion",
    "GetV0BillingLimitsXComputeAPIVersion",
    "GetV0BillingUsageXComputeAPIVersion",
    "GetV0JobsIdAttemptsResponse200",
    "GetV0JobsIdAttemptsXComputeAPIVersion",
    "GetV0JobsIdLogsFollow",
    "GetV0JobsIdLogsResponse200",
    "GetV0JobsIdLogsResponse200LinesItem",
    "GetV0JobsIdLogsResponse200LinesItemStream",
    "GetV0JobsIdLogsResponse200LinesItemTruncated",
    "GetV0JobsIdLogsXComputeAPIVersion",
    "GetV0JobsIdXComputeAPIVersion",
    "GetV0JobsResponse200",
    "GetV0JobsStateItem",
    "GetV0JobsXComputeAPIVersion",
    "GetV0SessionXComputeAPIVersion",
    "GetV0TokensResponse200",
    "GetV0TokensXComputeAPIVersion",
    "GetV0WebhooksIdDeliveriesResponse200",
    "GetV0WebhooksIdDeliveriesStatus",
    "GetV0WebhooksIdDeliveriesXComputeAPIVersion",
    "GetV0WebhooksIdXComputeAPIVersion",
    "GetV0WebhooksResponse200",
    "GetV0WebhooksXComputeAPIVersion",
    "GetV0WorkspacesIdAuditFormat",
    "GetV0WorkspacesIdAuditResponse200",
    "GetV0WorkspacesIdAuditXComputeAPIVersion",
    "GetV0WorkspacesIdMembersResponse200",
    "GetV0WorkspacesIdMembersXComputeAPIVersion",
    "GetV0WorkspacesIdXComputeAPIVersion",
    "GetV0WorkspacesResponse200",
    "GetV0WorkspacesXComputeAPIVersion",
    "Invoice",
    "InvoiceLine",
    "InvoiceLineKind",
    "InvoiceStatus",
    "Job",
    "JobA",
    "JobAArtifactsItem",
    "JobAEnv",
    "JobAFailureReasonType0",
    "JobALabels",
    "JobAPool",
    "JobARetry",
    "JobASelector",
    "JobAState",
    "JobArtifactsItem",
    "JobEnv",
    "JobFailureReasonType0",
    "JobLabels",
    "JobManifest",
    "JobManifestArtifacts",
    "JobManifestEnv",
    "JobManifestPool",
    "JobManifestResources",
    "JobManifestRetry",
    "JobManifestSelector",
    "JobPool",
    "JobRetry",
    "JobSelector",
    "JobState",
    "Labels",
    "Limits",
    "LimitsPendingType0",
    "Member",
    "MemberRole",
    "NodeA",
    "NodeACapacityType0",
    "NodeALabels",
    "NodeAState",
    "PatchV0BillingLimitsBody",
    "PatchV0BillingLimitsXComputeAPIVersion",
    "PatchV0WorkspacesIdBody",
    "PatchV0WorkspacesIdMembersUserIdBody",
    "PatchV0WorkspacesIdMembersUserIdBodyRole",
    "PatchV0WorkspacesIdMembersUserIdXComputeAPIVersion",
    "PatchV0WorkspacesIdXComputeAPIVersion",
    "Plan",
    "PlanId",
    "PlanPrices",
    "PostApiAuthRequestOtpBody",
    "PostApiAuthRequestOtpResponse200",
    "PostApiAuthRequestOtpResponse200Payload",
    "PostApiAuthRequestOtpResponse200Status",
    "PostApiAuthSessionBody",
    "PostApiAuthSessionResponse200",
    "PostApiAuthSessionResponse200Payload",
    "PostApiAuthSessionResponse200PayloadUser",
    "PostApiAuthSessionResponse200Status",
    "PostApiAuthSessionXComputeCSRF",
    "PostApiAuthSignOutBody",
    "PostApiAuthSignOutResponse200",
    "PostApiAuthSignOutResponse200Payload",
    "PostApiAuthSignOutResponse200Status",
    "PostApiAuthSignOutXComputeCSRF",
    "PostApiAuthVerifyOtpBody",
    "PostApiAuthVerifyOtpResponse200",
    "PostApiAuthVerifyOtpResponse200Payload",
    "PostApiAuthVerifyOtpResponse200PayloadUser",
    "PostApiAuthVerifyOtpResponse200Status",
    "PostApiComputeApiKeysCreateBody",
    "PostApiComputeApiKeysCreateBodyKind",
    "PostApiComputeApiKeysCreateBodyQuotas",
    "PostApiComputeApiKeysCreateResponse200",
    "PostApiComputeApiKeysCreateResponse200Payload",
    "PostApiComputeApiKeysCreateResponse200PayloadKind",
    "PostApiComputeApiKeysCreateResponse200PayloadQuotasType0",
    "PostApiComputeApiKeysCreateResponse200Status",
    "PostApiComputeApiKeysListBody",
    "PostApiComputeApiKeysListResponse200",
    "PostApiComputeApiKeysListResponse200Payload",
    "PostApiComputeApiKeysListResponse200PayloadKeysItem",
    "PostApiComputeApiKeysListResponse200PayloadKeysItemKind",
    "PostApiComputeApiKeysListResponse200PayloadKeysItemQuotasType0",
    "PostApiComputeApiKeysListResponse200Status",
    "PostApiComputeApiKeysRevokeBody",
    "PostApiComputeApiKeysRevokeResponse200",
    "PostApiComputeApiKeysRevokeResponse200Payload",
    "PostApiComputeApiKeysRevokeResponse200PayloadKind",
    "PostApiComputeApiKeysRevokeResponse200PayloadQuotasType0",
    "PostApiComputeApiKeysRevokeResponse200Status",
    "PostApiComputeBillingCheckoutCreateBody",
    "PostApiComputeBillingCheckoutCreateResponse200",
    "PostApiComputeBillingCheckoutCreateResponse200Status",
    "PostApiComputeBillingPlansListBody",
    "PostApiComputeBillingPlansListResponse200",
    "PostApiComputeBillingPlansListResponse200Payload",
    "PostApiComputeBillingPlansListResponse200Status",
    "PostApiComputeBillingStripeEventsBody",
    "PostApiComputeBillingStripeEventsResponse200",
    "PostApiComputeBillingStripeEventsResponse200Payload",
    "PostApiComputeBillingStripeEventsResponse200PayloadOutcome",
    "PostApiComputeBillingStripeEventsResponse200Status",
    "PostApiComputeBillingSubscriptionBody",
    "PostApiComputeBillingSubscriptionResponse200",
    "PostApiComputeBillingSubscriptionResponse200Status",
    "PostApiComputeJobsArtifactsPresignDownloadBody",
    "PostApiComputeJobsArtifactsPresignDownloadResponse200",
    "PostApiComputeJobsArtifactsPresignDownloadResponse200Payload",
    "PostApiComputeJobsArtifactsPresignDownloadResponse200PayloadMethod",
    "PostApiComputeJobsArtifactsPresignDownloadResponse200Status",
    "PostApiComputeJobsArtifactsPresignUploadBody",
    "PostApiComputeJobsArtifactsPresignUploadResponse200",
    "PostApiComputeJobsArtifactsPresignUploadResponse200Payload",
    "PostApiComputeJobsArtifactsPresignUploadResponse200PayloadMethod",
    "PostApiComputeJobsArtifactsPresignUploadResponse200Status",
    "PostApiComputeJobsCancelBody",
    "PostApiComputeJobsCancelResponse200",
    "PostApiComputeJobsCancelResponse200Status",
    "PostApiComputeJobsListBody",
    "PostApiComputeJobsListResponse200",
    "PostApiComputeJobsListResponse200Payload",
    "PostApiComputeJobsListResponse200Status",
    "PostApiComputeJobsRetrieveBody",
    "PostApiComputeJobsRetrieveResponse200",
    "PostApiComputeJobsRetrieveResponse200Status",
    "PostApiComputeJobsRetryBody",
    "PostApiComputeJobsRetryResponse200",
    "PostApiComputeJobsRetryResponse200Status",
    "PostApiComputeJobsSubmitResponse200",
    "PostApiComputeJobsSubmitResponse200Payload",
    "PostApiComputeJobsSubmitResponse200PayloadState",
    "PostApiComputeJobsSubmitResponse200Status",
    "PostApiComputeNodesDrainBody",
    "PostApiComputeNodesDrainResponse200",
    "PostApiComputeNodesDrainResponse200Status",
    "PostApiComputeNodesHeartbeatBody",
    "PostApiComputeNodesHeartbeatResponse200",
    "PostApiComputeNodesHeartbeatResponse200Payload",
    "PostApiComputeNodesHeartbeatResponse200Status",
    "PostApiComputeNodesListBody",
    "PostApiComputeNodesListResponse200",
    "PostApiComputeNodesListResponse200Payload",
    "PostApiComputeNodesListResponse200Status",
    "PostApiComputeNodesLogsBody",
    "PostApiComputeNodesLogsBodyLinesItem",
    "PostApiComputeNodesLogsBodyLinesItemStream",
    "PostApiComputeNodesLogsResponse200",
    "PostApiComputeNodesLogsResponse200Payload",
    "PostApiComputeNodesLogsResponse200Status",
    "PostApiComputeNodesPollBody",
    "PostApiComputeNodesPollResponse200",
    "PostApiComputeNodesPollResponse200Payload",
    "PostApiComputeNodesPollResponse200Status",
    "PostApiComputeNodesRegisterBody",
    "PostApiComputeNodesRegisterBodyCapabilities",
    "PostApiComputeNodesRegisterBodyCapacity",
    "PostApiComputeNodesRegisterResponse200",
    "PostApiComputeNodesRegisterResponse200Payload",
    "PostApiComputeNodesRegisterResponse200Status",
    "PostApiComputeNodesResultBody",
    "PostApiComputeNodesResultBodyUsage",
    "PostApiComputeNodesResultResponse200",
    "PostApiComputeNodesResultResponse200Status",
    "PostApiComputeNodesRotateKeyBody",
    "PostApiComputeNodesRotateKeyResponse200",
    "PostApiComputeNodesRotateKeyResponse200Payload",
    "PostApiComputeNodesRotateKeyResponse200Status",
    "PostV0AgentsIddrainBody",
    "PostV0AgentsIddrainXComputeAPIVersion",
    "PostV0JobsIdcancelXComputeAPIVersion",
    "PostV0JobsXComputeAPIVersion",
    "PostV0TokensBody",
    "PostV0TokensBodyRole",
    "PostV0TokensResponse201",
    "PostV0TokensResponse201Role",
    "PostV0TokensXComputeAPIVersion",
    "PostV0WebhooksBody",
    "PostV0WebhooksBodyEventsItem",
    "PostV0WebhooksIdDeliveriesDeliveryIdredeliverResponse202",
    "PostV0WebhooksIdDeliveriesDeliveryIdredeliverXComputeAPIVersion",
    "PostV0WebhooksIdrotateSecretResponse200",
    "PostV0WebhooksIdrotateSecretXComputeAPIVersion",
    "PostV0WebhooksResponse201",
    "PostV0WebhooksResponse201EventsItem",
    "PostV0WebhooksXComputeAPIVersion",
    "PostV0WorkspacesBody",
    "PostV0WorkspacesIdMembersBody",
    "PostV0WorkspacesIdMembersBodyRole",
    "PostV0WorkspacesIdMembersXComputeAPIVersion",
    "PostV0WorkspacesXComputeAPIVersion",
    "Problem",
    "ProblemDetails",
    "ProblemErrorsItem",
    "PutApiComputeArtifactsUploadJobIdIdResponse200",
    "PutApiComputeArtifactsUploadJobIdIdResponse200Payload",
    "PutApiComputeArtifactsUploadJobIdIdResponse200Status",
    "RemovedMember",
    "RemovedMemberRevoked",
    "RemovedMemberRole",
    "Session",
    "SessionUser",
    "SseLogEvent",
    "SseLogEventEvent",
    "SubmittedJob",
    "SubmittedJobState",
    "Subscription",
    "SubscriptionPlan",
    "SubscriptionStatus",
    "Usage",
    "UsageManaged",
    "UsageSelf",
    "Webhook",
    "WebhookDelivery",
    "WebhookDeliveryEventType",
    "WebhookDeliveryStatus",
    "WebhookEventsItem",
    "Workspace",
    "WorkspacePlan",
    "WorkspaceRole",
)
