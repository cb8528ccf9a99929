from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.job_manifest import JobManifest
from ...models.post_v0_jobs_x_compute_api_version import PostV0JobsXComputeAPIVersion
from ...models.problem import Problem
from ...models.submitted_job import SubmittedJob
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: JobManifest | Unset = UNSET,
    x_compute_api_version: PostV0JobsXComputeAPIVersion | Unset = UNSET,
    x_compute_workspace: str | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(x_compute_api_version, Unset):
        headers["X-Compute-API-Version"] = str(x_compute_api_version)

    if not isinstance(x_compute_workspace, Unset):
        headers["X-Compute-Workspace"] = x_compute_workspace

    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v0/jobs",
    }

    if not isinstance(body, Unset):
        _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Problem | SubmittedJob | None:
    if response.status_code == 201:
        response_201 = SubmittedJob.from_dict(response.json())

        return response_201

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

    if response.status_code == 402:
        response_402 = Problem.from_dict(response.json())

        return response_402

    if response.status_code == 403:
        response_403 = Problem.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = Problem.from_dict(response.json())

        return response_404

    if response.status_code == 409:
        response_409 = Problem.from_dict(response.json())

        return response_409

    if response.status_code == 413:
        response_413 = Problem.from_dict(response.json())

        return response_413

    if response.status_code == 422:
        response_422 = Problem.from_dict(response.json())

        return response_422

    if response.status_code == 429:
        response_429 = Problem.from_dict(response.json())

        return response_429

    if response.status_code == 503:
        response_503 = Problem.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[Problem | SubmittedJob]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: JobManifest | Unset = UNSET,
    x_compute_api_version: PostV0JobsXComputeAPIVersion | Unset = UNSET,
    x_compute_workspace: str | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> Response[Problem | SubmittedJob]:
    """Submit a job (the manifest of CONTRACT §3, the same file `compute run` takes) in the active
    workspace

     Needs the role of action `job.submit` (see the role table).

    Args:
        x_compute_api_version (PostV0JobsXComputeAPIVersion | Unset):
        x_compute_workspace (str | Unset): The workspace to act in (default: the token’s own, or
            the session’s personal one)
        idempotency_key (str | Unset): Makes the submit safe to retry: for 24 h the first answer
            (status and body) is replayed with `Idempotent-Replayed: true`; another body with the same
            key is 422 `idempotency.mismatch`; while the first request is in progress another is 409
            `resource.conflict` (for at most 30 s after a crash of the instance carrying it; then a
            retry finishes that same job). Keys are per workspace. Only a created job is kept: a
            request that failed without one leaves the key free.
        body (JobManifest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | SubmittedJob]
    """

    kwargs = _get_kwargs(
        body=body,
        x_compute_api_version=x_compute_api_version,
        x_compute_workspace=x_compute_workspace,
        idempotency_key=idempotency_key,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    body: JobManifest | Unset = UNSET,
    x_compute_api_version: PostV0JobsXComputeAPIVersion | Unset = UNSET,
    x_compute_workspace: str | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> Problem | SubmittedJob | None:
    """Submit a job (the manifest of CONTRACT §3, the same file `compute run` takes) in the active
    workspace

     Needs the role of action `job.submit` (see the role table).

    Args:
        x_compute_api_version (PostV0JobsXComputeAPIVersion | Unset):
        x_compute_workspace (str | Unset): The workspace to act in (default: the token’s own, or
            the session’s personal one)
        idempotency_key (str | Unset): Makes the submit safe to retry: for 24 h the first answer
            (status and body) is replayed with `Idempotent-Replayed: true`; another body with the same
            key is 422 `idempotency.mismatch`; while the first request is in progress another is 409
            `resource.conflict` (for at most 30 s after a crash of the instance carrying it; then a
            retry finishes that same job). Keys are per workspace. Only a created job is kept: a
            request that failed without one leaves the key free.
        body (JobManifest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | SubmittedJob
    """

    return sync_detailed(
        client=client,
        body=body,
        x_compute_api_version=x_compute_api_version,
        x_compute_workspace=x_compute_workspace,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: JobManifest | Unset = UNSET,
    x_compute_api_version: PostV0JobsXComputeAPIVersion | Unset = UNSET,
    x_compute_workspace: str | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> Response[Problem | SubmittedJob]:
    """Submit a job (the manifest of CONTRACT §3, the same file `compute run` takes) in the active
    workspace

     Needs the role of action `job.submit` (see the role table).

    Args:
        x_compute_api_version (PostV0JobsXComputeAPIVersion | Unset):
        x_compute_workspace (str | Unset): The workspace to act in (default: the token’s own, or
            the session’s personal one)
        idempotency_key (str | Unset): Makes the submit safe to retry: for 24 h the first answer
            (status and body) is replayed with `Idempotent-Replayed: true`; another body with the same
            key is 422 `idempotency.mismatch`; while the first request is in progress another is 409
            `resource.conflict` (for at most 30 s after a crash of the instance carrying it; then a
            retry finishes that same job). Keys are per workspace. Only a created job is kept: a
            request that failed without one leaves the key free.
        body (JobManifest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | SubmittedJob]
    """

    kwargs = _get_kwargs(
        body=body,
        x_compute_api_version=x_compute_api_version,
        x_compute_workspace=x_compute_workspace,
        idempotency_key=idempotency_key,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: JobManifest | Unset = UNSET,
    x_compute_api_version: PostV0JobsXComputeAPIVersion | Unset = UNSET,
    x_compute_workspace: str | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> Problem | SubmittedJob | None:
    """Submit a job (the manifest of CONTRACT §3, the same file `compute run` takes) in the active
    workspace

     Needs the role of action `job.submit` (see the role table).

    Args:
        x_compute_api_version (PostV0JobsXComputeAPIVersion | Unset):
        x_compute_workspace (str | Unset): The workspace to act in (default: the token’s own, or
            the session’s personal one)
        idempotency_key (str | Unset): Makes the submit safe to retry: for 24 h the first answer
            (status and body) is replayed with `Idempotent-Replayed: true`; another body with the same
            key is 422 `idempotency.mismatch`; while the first request is in progress another is 409
            `resource.conflict` (for at most 30 s after a crash of the instance carrying it; then a
            retry finishes that same job). Keys are per workspace. Only a created job is kept: a
            request that failed without one leaves the key free.
        body (JobManifest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | SubmittedJob
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            x_compute_api_version=x_compute_api_version,
            x_compute_workspace=x_compute_workspace,
            idempotency_key=idempotency_key,
        )
    ).parsed
