from http import HTTPStatus
from typing import Any

import httpx

from ...client import AuthenticatedClient, Client
from ...models.error_envelope import ErrorEnvelope
from ...models.post_api_auth_session_body import PostApiAuthSessionBody
from ...models.post_api_auth_session_response_200 import PostApiAuthSessionResponse200
from ...models.post_api_auth_session_x_compute_csrf import (
    PostApiAuthSessionXComputeCSRF,
)
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: PostApiAuthSessionBody | Unset = UNSET,
    x_compute_csrf: PostApiAuthSessionXComputeCSRF,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    headers["X-Compute-CSRF"] = str(x_compute_csrf)

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/auth/session",
    }

    if not isinstance(body, Unset):
        _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorEnvelope | PostApiAuthSessionResponse200:
    if response.status_code == 200:
        response_200 = PostApiAuthSessionResponse200.from_dict(response.json())

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
) -> Response[ErrorEnvelope | PostApiAuthSessionResponse200]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: PostApiAuthSessionBody | Unset = UNSET,
    x_compute_csrf: PostApiAuthSessionXComputeCSRF,
) -> Response[ErrorEnvelope | PostApiAuthSessionResponse200]:
    """verify-otp for a browser: the session JWT is set as an HttpOnly, SameSite=Strict cookie
    (`compute_session`, Path=/, Secure and `__Host-` named when PUBLIC_URL is https) and left out of the
    answer, so no script of the page can read it. Both surfaces take the cookie wherever they take a
    session token; a POST, PUT, PATCH or DELETE it authenticates must send X-Compute-CSRF: 1, else 403
    auth.forbidden (audited). A request with Authorization or X-API-Key is authenticated by that header
    alone

    Args:
        x_compute_csrf (PostApiAuthSessionXComputeCSRF): Required: a cross-site form cannot send
            it. The portal sends it on every POST, PUT, PATCH and DELETE
        body (PostApiAuthSessionBody | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | PostApiAuthSessionResponse200]
    """

    kwargs = _get_kwargs(
        body=body,
        x_compute_csrf=x_compute_csrf,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    body: PostApiAuthSessionBody | Unset = UNSET,
    x_compute_csrf: PostApiAuthSessionXComputeCSRF,
) -> ErrorEnvelope | PostApiAuthSessionResponse200 | None:
    """verify-otp for a browser: the session JWT is set as an HttpOnly, SameSite=Strict cookie
    (`compute_session`, Path=/, Secure and `__Host-` named when PUBLIC_URL is https) and left out of the
    answer, so no script of the page can read it. Both surfaces take the cookie wherever they take a
    session token; a POST, PUT, PATCH or DELETE it authenticates must send X-Compute-CSRF: 1, else 403
    auth.forbidden (audited). A request with Authorization or X-API-Key is authenticated by that header
    alone

    Args:
        x_compute_csrf (PostApiAuthSessionXComputeCSRF): Required: a cross-site form cannot send
            it. The portal sends it on every POST, PUT, PATCH and DELETE
        body (PostApiAuthSessionBody | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | PostApiAuthSessionResponse200
    """

    return sync_detailed(
        client=client,
        body=body,
        x_compute_csrf=x_compute_csrf,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: PostApiAuthSessionBody | Unset = UNSET,
    x_compute_csrf: PostApiAuthSessionXComputeCSRF,
) -> Response[ErrorEnvelope | PostApiAuthSessionResponse200]:
    """verify-otp for a browser: the session JWT is set as an HttpOnly, SameSite=Strict cookie
    (`compute_session`, Path=/, Secure and `__Host-` named when PUBLIC_URL is https) and left out of the
    answer, so no script of the page can read it. Both surfaces take the cookie wherever they take a
    session token; a POST, PUT, PATCH or DELETE it authenticates must send X-Compute-CSRF: 1, else 403
    auth.forbidden (audited). A request with Authorization or X-API-Key is authenticated by that header
    alone

    Args:
        x_compute_csrf (PostApiAuthSessionXComputeCSRF): Required: a cross-site form cannot send
            it. The portal sends it on every POST, PUT, PATCH and DELETE
        body (PostApiAuthSessionBody | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | PostApiAuthSessionResponse200]
    """

    kwargs = _get_kwargs(
        body=body,
        x_compute_csrf=x_compute_csrf,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    body: PostApiAuthSessionBody | Unset = UNSET,
    x_compute_csrf: PostApiAuthSessionXComputeCSRF,
) -> ErrorEnvelope | PostApiAuthSessionResponse200 | None:
    """verify-otp for a browser: the session JWT is set as an HttpOnly, SameSite=Strict cookie
    (`compute_session`, Path=/, Secure and `__Host-` named when PUBLIC_URL is https) and left out of the
    answer, so no script of the page can read it. Both surfaces take the cookie wherever they take a
    session token; a POST, PUT, PATCH or DELETE it authenticates must send X-Compute-CSRF: 1, else 403
    auth.forbidden (audited). A request with Authorization or X-API-Key is authenticated by that header
    alone

    Args:
        x_compute_csrf (PostApiAuthSessionXComputeCSRF): Required: a cross-site form cannot send
            it. The portal sends it on every POST, PUT, PATCH and DELETE
        body (PostApiAuthSessionBody | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | PostApiAuthSessionResponse200
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            x_compute_csrf=x_compute_csrf,
        )
    ).parsed
