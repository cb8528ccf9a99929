from http import HTTPStatus
from typing import Any

import httpx

from ...client import AuthenticatedClient, Client
from ...models.error_envelope import ErrorEnvelope
from ...models.post_api_auth_sign_out_body import PostApiAuthSignOutBody
from ...models.post_api_auth_sign_out_response_200 import PostApiAuthSignOutResponse200
from ...models.post_api_auth_sign_out_x_compute_csrf import (
    PostApiAuthSignOutXComputeCSRF,
)
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: PostApiAuthSignOutBody | Unset = UNSET,
    x_compute_csrf: PostApiAuthSignOutXComputeCSRF,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    headers["X-Compute-CSRF"] = str(x_compute_csrf)

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/auth/sign-out",
    }

    if not isinstance(body, Unset):
        _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorEnvelope | PostApiAuthSignOutResponse200:
    if response.status_code == 200:
        response_200 = PostApiAuthSignOutResponse200.from_dict(response.json())

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
) -> Response[ErrorEnvelope | PostApiAuthSignOutResponse200]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: PostApiAuthSignOutBody | Unset = UNSET,
    x_compute_csrf: PostApiAuthSignOutXComputeCSRF,
) -> Response[ErrorEnvelope | PostApiAuthSignOutResponse200]:
    """End the session: its token (the cookie's, or the Authorization header's) is refused on every
    instance before this answers, and the cookie is cleared (X-Compute-CSRF: 1 required, so no other
    site can sign a person out)

    Args:
        x_compute_csrf (PostApiAuthSignOutXComputeCSRF): Required: a cross-site form cannot send
            it. The portal sends it on every POST, PUT, PATCH and DELETE
        body (PostApiAuthSignOutBody | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | PostApiAuthSignOutResponse200]
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
    body: PostApiAuthSignOutBody | Unset = UNSET,
    x_compute_csrf: PostApiAuthSignOutXComputeCSRF,
) -> ErrorEnvelope | PostApiAuthSignOutResponse200 | None:
    """End the session: its token (the cookie's, or the Authorization header's) is refused on every
    instance before this answers, and the cookie is cleared (X-Compute-CSRF: 1 required, so no other
    site can sign a person out)

    Args:
        x_compute_csrf (PostApiAuthSignOutXComputeCSRF): Required: a cross-site form cannot send
            it. The portal sends it on every POST, PUT, PATCH and DELETE
        body (PostApiAuthSignOutBody | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | PostApiAuthSignOutResponse200
    """

    return sync_detailed(
        client=client,
        body=body,
        x_compute_csrf=x_compute_csrf,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: PostApiAuthSignOutBody | Unset = UNSET,
    x_compute_csrf: PostApiAuthSignOutXComputeCSRF,
) -> Response[ErrorEnvelope | PostApiAuthSignOutResponse200]:
    """End the session: its token (the cookie's, or the Authorization header's) is refused on every
    instance before this answers, and the cookie is cleared (X-Compute-CSRF: 1 required, so no other
    site can sign a person out)

    Args:
        x_compute_csrf (PostApiAuthSignOutXComputeCSRF): Required: a cross-site form cannot send
            it. The portal sends it on every POST, PUT, PATCH and DELETE
        body (PostApiAuthSignOutBody | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | PostApiAuthSignOutResponse200]
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
    body: PostApiAuthSignOutBody | Unset = UNSET,
    x_compute_csrf: PostApiAuthSignOutXComputeCSRF,
) -> ErrorEnvelope | PostApiAuthSignOutResponse200 | None:
    """End the session: its token (the cookie's, or the Authorization header's) is refused on every
    instance before this answers, and the cookie is cleared (X-Compute-CSRF: 1 required, so no other
    site can sign a person out)

    Args:
        x_compute_csrf (PostApiAuthSignOutXComputeCSRF): Required: a cross-site form cannot send
            it. The portal sends it on every POST, PUT, PATCH and DELETE
        body (PostApiAuthSignOutBody | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | PostApiAuthSignOutResponse200
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            x_compute_csrf=x_compute_csrf,
        )
    ).parsed
