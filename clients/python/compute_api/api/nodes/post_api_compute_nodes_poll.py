from http import HTTPStatus
from typing import Any

import httpx

from ...client import AuthenticatedClient, Client
from ...models.error_envelope import ErrorEnvelope
from ...models.post_api_compute_nodes_poll_body import PostApiComputeNodesPollBody
from ...models.post_api_compute_nodes_poll_response_200 import (
    PostApiComputeNodesPollResponse200,
)
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: PostApiComputeNodesPollBody | Unset = UNSET,
    x_compute_workspace: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(x_compute_workspace, Unset):
        headers["X-Compute-Workspace"] = x_compute_workspace

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/compute/nodes/poll",
    }

    if not isinstance(body, Unset):
        _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorEnvelope | PostApiComputeNodesPollResponse200:
    if response.status_code == 200:
        response_200 = PostApiComputeNodesPollResponse200.from_dict(response.json())

        return response_200

    if response.status_code == 408:
        response_408 = ErrorEnvelope.from_dict(response.json())

        return response_408

    if response.status_code == 429:
        response_429 = ErrorEnvelope.from_dict(response.json())

        return response_429

    if response.status_code == 503:
        response_503 = ErrorEnvelope.from_dict(response.json())

        return response_503

    response_default = ErrorEnvelope.from_dict(response.json())

    return response_default


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[ErrorEnvelope | PostApiComputeNodesPollResponse200]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: PostApiComputeNodesPollBody | Unset = UNSET,
    x_compute_workspace: str | Unset = UNSET,
) -> Response[ErrorEnvelope | PostApiComputeNodesPollResponse200]:
    """Take assigned jobs; waitSeconds (0..30) long-polls until a job is submitted (up to 2 s more when a
    job is being handed to it as its wait ends). At most POLLS_PER_CREDENTIAL polls per credential at
    once (429 past it)

     Needs the role of action `agent.work` (see the role table); user and agent keys act as members. Node
    keys may call this for their own node. Managed-pool keys get 403 auth.forbidden.

    Args:
        x_compute_workspace (str | Unset): With a session JWT: act in this workspace of the
            user’s, with the role held there (as on /v0; `compute workspaces use` sends it). Without
            it a session acts in the personal workspace. Keys act in their own workspace only: another
            is 404.
        body (PostApiComputeNodesPollBody | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | PostApiComputeNodesPollResponse200]
    """

    kwargs = _get_kwargs(
        body=body,
        x_compute_workspace=x_compute_workspace,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    body: PostApiComputeNodesPollBody | Unset = UNSET,
    x_compute_workspace: str | Unset = UNSET,
) -> ErrorEnvelope | PostApiComputeNodesPollResponse200 | None:
    """Take assigned jobs; waitSeconds (0..30) long-polls until a job is submitted (up to 2 s more when a
    job is being handed to it as its wait ends). At most POLLS_PER_CREDENTIAL polls per credential at
    once (429 past it)

     Needs the role of action `agent.work` (see the role table); user and agent keys act as members. Node
    keys may call this for their own node. Managed-pool keys get 403 auth.forbidden.

    Args:
        x_compute_workspace (str | Unset): With a session JWT: act in this workspace of the
            user’s, with the role held there (as on /v0; `compute workspaces use` sends it). Without
            it a session acts in the personal workspace. Keys act in their own workspace only: another
            is 404.
        body (PostApiComputeNodesPollBody | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | PostApiComputeNodesPollResponse200
    """

    return sync_detailed(
        client=client,
        body=body,
        x_compute_workspace=x_compute_workspace,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: PostApiComputeNodesPollBody | Unset = UNSET,
    x_compute_workspace: str | Unset = UNSET,
) -> Response[ErrorEnvelope | PostApiComputeNodesPollResponse200]:
    """Take assigned jobs; waitSeconds (0..30) long-polls until a job is submitted (up to 2 s more when a
    job is being handed to it as its wait ends). At most POLLS_PER_CREDENTIAL polls per credential at
    once (429 past it)

     Needs the role of action `agent.work` (see the role table); user and agent keys act as members. Node
    keys may call this for their own node. Managed-pool keys get 403 auth.forbidden.

    Args:
        x_compute_workspace (str | Unset): With a session JWT: act in this workspace of the
            user’s, with the role held there (as on /v0; `compute workspaces use` sends it). Without
            it a session acts in the personal workspace. Keys act in their own workspace only: another
            is 404.
        body (PostApiComputeNodesPollBody | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | PostApiComputeNodesPollResponse200]
    """

    kwargs = _get_kwargs(
        body=body,
        x_compute_workspace=x_compute_workspace,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: PostApiComputeNodesPollBody | Unset = UNSET,
    x_compute_workspace: str | Unset = UNSET,
) -> ErrorEnvelope | PostApiComputeNodesPollResponse200 | None:
    """Take assigned jobs; waitSeconds (0..30) long-polls until a job is submitted (up to 2 s more when a
    job is being handed to it as its wait ends). At most POLLS_PER_CREDENTIAL polls per credential at
    once (429 past it)

     Needs the role of action `agent.work` (see the role table); user and agent keys act as members. Node
    keys may call this for their own node. Managed-pool keys get 403 auth.forbidden.

    Args:
        x_compute_workspace (str | Unset): With a session JWT: act in this workspace of the
            user’s, with the role held there (as on /v0; `compute workspaces use` sends it). Without
            it a session acts in the personal workspace. Keys act in their own workspace only: another
            is 404.
        body (PostApiComputeNodesPollBody | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | PostApiComputeNodesPollResponse200
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            x_compute_workspace=x_compute_workspace,
        )
    ).parsed
