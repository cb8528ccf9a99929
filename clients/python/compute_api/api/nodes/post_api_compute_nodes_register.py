from http import HTTPStatus
from typing import Any

import httpx

from ...client import AuthenticatedClient, Client
from ...models.error_envelope import ErrorEnvelope
from ...models.post_api_compute_nodes_register_body import (
    PostApiComputeNodesRegisterBody,
)
from ...models.post_api_compute_nodes_register_response_200 import (
    PostApiComputeNodesRegisterResponse200,
)
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: PostApiComputeNodesRegisterBody | Unset = UNSET,
    x_compute_workspace: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(x_compute_workspace, Unset):
        headers["X-Compute-Workspace"] = x_compute_workspace

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/compute/nodes/register",
    }

    if not isinstance(body, Unset):
        _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorEnvelope | PostApiComputeNodesRegisterResponse200:
    if response.status_code == 200:
        response_200 = PostApiComputeNodesRegisterResponse200.from_dict(response.json())

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
) -> Response[ErrorEnvelope | PostApiComputeNodesRegisterResponse200]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: PostApiComputeNodesRegisterBody | Unset = UNSET,
    x_compute_workspace: str | Unset = UNSET,
) -> Response[ErrorEnvelope | PostApiComputeNodesRegisterResponse200]:
    """An agent's first contact (agent or user key, or an operator's managed-pool key); returns the node
    key used from then on. With a managed-pool key the node joins the managed pool of `region` (default
    `local`) and takes `pool: managed` jobs of every workspace in that region, never `self` jobs; with
    any other key it takes its workspace’s `self` jobs only, and a `region` is 400 request.invalid

     Needs the role of action `agent.register` (see the role table); user and agent keys act as members.
    Node keys get 403 auth.forbidden. A managed-pool key may call this.

    Args:
        x_compute_workspace (str | Unset): With a session JWT: act in this workspace of the
            user’s, with the role held there (as on /v0; `compute workspaces use` sends it). Without
            it a session acts in the personal workspace. Keys act in their own workspace only: another
            is 404.
        body (PostApiComputeNodesRegisterBody | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | PostApiComputeNodesRegisterResponse200]
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
    body: PostApiComputeNodesRegisterBody | Unset = UNSET,
    x_compute_workspace: str | Unset = UNSET,
) -> ErrorEnvelope | PostApiComputeNodesRegisterResponse200 | None:
    """An agent's first contact (agent or user key, or an operator's managed-pool key); returns the node
    key used from then on. With a managed-pool key the node joins the managed pool of `region` (default
    `local`) and takes `pool: managed` jobs of every workspace in that region, never `self` jobs; with
    any other key it takes its workspace’s `self` jobs only, and a `region` is 400 request.invalid

     Needs the role of action `agent.register` (see the role table); user and agent keys act as members.
    Node keys get 403 auth.forbidden. A managed-pool key may call this.

    Args:
        x_compute_workspace (str | Unset): With a session JWT: act in this workspace of the
            user’s, with the role held there (as on /v0; `compute workspaces use` sends it). Without
            it a session acts in the personal workspace. Keys act in their own workspace only: another
            is 404.
        body (PostApiComputeNodesRegisterBody | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | PostApiComputeNodesRegisterResponse200
    """

    return sync_detailed(
        client=client,
        body=body,
        x_compute_workspace=x_compute_workspace,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: PostApiComputeNodesRegisterBody | Unset = UNSET,
    x_compute_workspace: str | Unset = UNSET,
) -> Response[ErrorEnvelope | PostApiComputeNodesRegisterResponse200]:
    """An agent's first contact (agent or user key, or an operator's managed-pool key); returns the node
    key used from then on. With a managed-pool key the node joins the managed pool of `region` (default
    `local`) and takes `pool: managed` jobs of every workspace in that region, never `self` jobs; with
    any other key it takes its workspace’s `self` jobs only, and a `region` is 400 request.invalid

     Needs the role of action `agent.register` (see the role table); user and agent keys act as members.
    Node keys get 403 auth.forbidden. A managed-pool key may call this.

    Args:
        x_compute_workspace (str | Unset): With a session JWT: act in this workspace of the
            user’s, with the role held there (as on /v0; `compute workspaces use` sends it). Without
            it a session acts in the personal workspace. Keys act in their own workspace only: another
            is 404.
        body (PostApiComputeNodesRegisterBody | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | PostApiComputeNodesRegisterResponse200]
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
    body: PostApiComputeNodesRegisterBody | Unset = UNSET,
    x_compute_workspace: str | Unset = UNSET,
) -> ErrorEnvelope | PostApiComputeNodesRegisterResponse200 | None:
    """An agent's first contact (agent or user key, or an operator's managed-pool key); returns the node
    key used from then on. With a managed-pool key the node joins the managed pool of `region` (default
    `local`) and takes `pool: managed` jobs of every workspace in that region, never `self` jobs; with
    any other key it takes its workspace’s `self` jobs only, and a `region` is 400 request.invalid

     Needs the role of action `agent.register` (see the role table); user and agent keys act as members.
    Node keys get 403 auth.forbidden. A managed-pool key may call this.

    Args:
        x_compute_workspace (str | Unset): With a session JWT: act in this workspace of the
            user’s, with the role held there (as on /v0; `compute workspaces use` sends it). Without
            it a session acts in the personal workspace. Keys act in their own workspace only: another
            is 404.
        body (PostApiComputeNodesRegisterBody | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | PostApiComputeNodesRegisterResponse200
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            x_compute_workspace=x_compute_workspace,
        )
    ).parsed
