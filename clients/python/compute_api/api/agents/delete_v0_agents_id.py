from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.delete_v0_agents_id_x_compute_api_version import (
    DeleteV0AgentsIdXComputeAPIVersion,
)
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: str,
    *,
    x_compute_api_version: DeleteV0AgentsIdXComputeAPIVersion | Unset = UNSET,
    x_compute_workspace: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(x_compute_api_version, Unset):
        headers["X-Compute-API-Version"] = str(x_compute_api_version)

    if not isinstance(x_compute_workspace, Unset):
        headers["X-Compute-Workspace"] = x_compute_workspace

    _kwargs: dict[str, Any] = {
        "method": "delete",
        "url": "/v0/agents/{id}".format(
            id=quote(str(id), safe=""),
        ),
    }

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Any | Problem | None:
    if response.status_code == 204:
        response_204 = cast(Any, None)
        return response_204

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = Problem.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = Problem.from_dict(response.json())

        return response_404

    if response.status_code == 413:
        response_413 = Problem.from_dict(response.json())

        return response_413

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
) -> Response[Any | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    id: str,
    *,
    client: AuthenticatedClient,
    x_compute_api_version: DeleteV0AgentsIdXComputeAPIVersion | Unset = UNSET,
    x_compute_workspace: str | Unset = UNSET,
) -> Response[Any | Problem]:
    """Remove the agent (admin): its node key stops at once, it is no longer listed, and each job it runs
    is requeued at once as a new attempt (not counted as an agent loss); its late result is 409
    `job.not_assigned`. 204; 404 once removed. The agent process may register again with its agent key
    and is then a new agent

     Needs the role of action `agent.deregister` (see the role table).

    Args:
        id (str):
        x_compute_api_version (DeleteV0AgentsIdXComputeAPIVersion | Unset):
        x_compute_workspace (str | Unset): The workspace to act in (default: the token’s own, or
            the session’s personal one)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | Problem]
    """

    kwargs = _get_kwargs(
        id=id,
        x_compute_api_version=x_compute_api_version,
        x_compute_workspace=x_compute_workspace,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: str,
    *,
    client: AuthenticatedClient,
    x_compute_api_version: DeleteV0AgentsIdXComputeAPIVersion | Unset = UNSET,
    x_compute_workspace: str | Unset = UNSET,
) -> Any | Problem | None:
    """Remove the agent (admin): its node key stops at once, it is no longer listed, and each job it runs
    is requeued at once as a new attempt (not counted as an agent loss); its late result is 409
    `job.not_assigned`. 204; 404 once removed. The agent process may register again with its agent key
    and is then a new agent

     Needs the role of action `agent.deregister` (see the role table).

    Args:
        id (str):
        x_compute_api_version (DeleteV0AgentsIdXComputeAPIVersion | Unset):
        x_compute_workspace (str | Unset): The workspace to act in (default: the token’s own, or
            the session’s personal one)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | Problem
    """

    return sync_detailed(
        id=id,
        client=client,
        x_compute_api_version=x_compute_api_version,
        x_compute_workspace=x_compute_workspace,
    ).parsed


async def asyncio_detailed(
    id: str,
    *,
    client: AuthenticatedClient,
    x_compute_api_version: DeleteV0AgentsIdXComputeAPIVersion | Unset = UNSET,
    x_compute_workspace: str | Unset = UNSET,
) -> Response[Any | Problem]:
    """Remove the agent (admin): its node key stops at once, it is no longer listed, and each job it runs
    is requeued at once as a new attempt (not counted as an agent loss); its late result is 409
    `job.not_assigned`. 204; 404 once removed. The agent process may register again with its agent key
    and is then a new agent

     Needs the role of action `agent.deregister` (see the role table).

    Args:
        id (str):
        x_compute_api_version (DeleteV0AgentsIdXComputeAPIVersion | Unset):
        x_compute_workspace (str | Unset): The workspace to act in (default: the token’s own, or
            the session’s personal one)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | Problem]
    """

    kwargs = _get_kwargs(
        id=id,
        x_compute_api_version=x_compute_api_version,
        x_compute_workspace=x_compute_workspace,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: str,
    *,
    client: AuthenticatedClient,
    x_compute_api_version: DeleteV0AgentsIdXComputeAPIVersion | Unset = UNSET,
    x_compute_workspace: str | Unset = UNSET,
) -> Any | Problem | None:
    """Remove the agent (admin): its node key stops at once, it is no longer listed, and each job it runs
    is requeued at once as a new attempt (not counted as an agent loss); its late result is 409
    `job.not_assigned`. 204; 404 once removed. The agent process may register again with its agent key
    and is then a new agent

     Needs the role of action `agent.deregister` (see the role table).

    Args:
        id (str):
        x_compute_api_version (DeleteV0AgentsIdXComputeAPIVersion | Unset):
        x_compute_workspace (str | Unset): The workspace to act in (default: the token’s own, or
            the session’s personal one)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | Problem
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            x_compute_api_version=x_compute_api_version,
            x_compute_workspace=x_compute_workspace,
        )
    ).parsed
