from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_envelope import ErrorEnvelope
from ...models.get_api_compute_jobs_job_id_logs_follow import (
    GetApiComputeJobsJobIdLogsFollow,
)
from ...models.sse_log_event import SseLogEvent
from ...types import UNSET, Response, Unset


def _get_kwargs(
    job_id: str,
    *,
    follow: GetApiComputeJobsJobIdLogsFollow
    | Unset = GetApiComputeJobsJobIdLogsFollow.TRUE,
    last_event_id: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(last_event_id, Unset):
        headers["Last-Event-ID"] = last_event_id

    params: dict[str, Any] = {}

    json_follow: str | Unset = UNSET
    if not isinstance(follow, Unset):
        json_follow = follow.value

    params["follow"] = json_follow

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/compute/jobs/{job_id}/logs".format(
            job_id=quote(str(job_id), safe=""),
        ),
        "params": params,
    }

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorEnvelope | SseLogEvent | None:
    if response.status_code == 200:
        response_200 = SseLogEvent.from_dict(response.text)

        return response_200

    if response.status_code == 400:
        response_400 = ErrorEnvelope.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = ErrorEnvelope.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = ErrorEnvelope.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ErrorEnvelope.from_dict(response.json())

        return response_404

    if response.status_code == 429:
        response_429 = ErrorEnvelope.from_dict(response.json())

        return response_429

    if response.status_code == 503:
        response_503 = ErrorEnvelope.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[ErrorEnvelope | SseLogEvent]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    job_id: str,
    *,
    client: AuthenticatedClient,
    follow: GetApiComputeJobsJobIdLogsFollow
    | Unset = GetApiComputeJobsJobIdLogsFollow.TRUE,
    last_event_id: str | Unset = UNSET,
) -> Response[ErrorEnvelope | SseLogEvent]:
    """SSE stream of a job's log: `event: log` (id = seq), `event: log.truncated`, then `event: end`;
    resume with Last-Event-ID. At most SSE_STREAMS_PER_CREDENTIAL streams per credential at once (429
    past it); a stream whose credential is revoked or expires is closed. `?follow=false` sends what is
    stored and closes (with `end` only if the job is over)

    Args:
        job_id (str):
        follow (GetApiComputeJobsJobIdLogsFollow | Unset): false: what is stored, then close
            Default: GetApiComputeJobsJobIdLogsFollow.TRUE.
        last_event_id (str | Unset): Resume after this seq

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | SseLogEvent]
    """

    kwargs = _get_kwargs(
        job_id=job_id,
        follow=follow,
        last_event_id=last_event_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    job_id: str,
    *,
    client: AuthenticatedClient,
    follow: GetApiComputeJobsJobIdLogsFollow
    | Unset = GetApiComputeJobsJobIdLogsFollow.TRUE,
    last_event_id: str | Unset = UNSET,
) -> ErrorEnvelope | SseLogEvent | None:
    """SSE stream of a job's log: `event: log` (id = seq), `event: log.truncated`, then `event: end`;
    resume with Last-Event-ID. At most SSE_STREAMS_PER_CREDENTIAL streams per credential at once (429
    past it); a stream whose credential is revoked or expires is closed. `?follow=false` sends what is
    stored and closes (with `end` only if the job is over)

    Args:
        job_id (str):
        follow (GetApiComputeJobsJobIdLogsFollow | Unset): false: what is stored, then close
            Default: GetApiComputeJobsJobIdLogsFollow.TRUE.
        last_event_id (str | Unset): Resume after this seq

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | SseLogEvent
    """

    return sync_detailed(
        job_id=job_id,
        client=client,
        follow=follow,
        last_event_id=last_event_id,
    ).parsed


async def asyncio_detailed(
    job_id: str,
    *,
    client: AuthenticatedClient,
    follow: GetApiComputeJobsJobIdLogsFollow
    | Unset = GetApiComputeJobsJobIdLogsFollow.TRUE,
    last_event_id: str | Unset = UNSET,
) -> Response[ErrorEnvelope | SseLogEvent]:
    """SSE stream of a job's log: `event: log` (id = seq), `event: log.truncated`, then `event: end`;
    resume with Last-Event-ID. At most SSE_STREAMS_PER_CREDENTIAL streams per credential at once (429
    past it); a stream whose credential is revoked or expires is closed. `?follow=false` sends what is
    stored and closes (with `end` only if the job is over)

    Args:
        job_id (str):
        follow (GetApiComputeJobsJobIdLogsFollow | Unset): false: what is stored, then close
            Default: GetApiComputeJobsJobIdLogsFollow.TRUE.
        last_event_id (str | Unset): Resume after this seq

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | SseLogEvent]
    """

    kwargs = _get_kwargs(
        job_id=job_id,
        follow=follow,
        last_event_id=last_event_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    job_id: str,
    *,
    client: AuthenticatedClient,
    follow: GetApiComputeJobsJobIdLogsFollow
    | Unset = GetApiComputeJobsJobIdLogsFollow.TRUE,
    last_event_id: str | Unset = UNSET,
) -> ErrorEnvelope | SseLogEvent | None:
    """SSE stream of a job's log: `event: log` (id = seq), `event: log.truncated`, then `event: end`;
    resume with Last-Event-ID. At most SSE_STREAMS_PER_CREDENTIAL streams per credential at once (429
    past it); a stream whose credential is revoked or expires is closed. `?follow=false` sends what is
    stored and closes (with `end` only if the job is over)

    Args:
        job_id (str):
        follow (GetApiComputeJobsJobIdLogsFollow | Unset): false: what is stored, then close
            Default: GetApiComputeJobsJobIdLogsFollow.TRUE.
        last_event_id (str | Unset): Resume after this seq

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | SseLogEvent
    """

    return (
        await asyncio_detailed(
            job_id=job_id,
            client=client,
            follow=follow,
            last_event_id=last_event_id,
        )
    ).parsed
