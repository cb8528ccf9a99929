from http import HTTPStatus
from typing import Any

import httpx

from ...client import AuthenticatedClient, Client
from ...models.error_envelope import ErrorEnvelope
from ...models.post_api_auth_verify_otp_body import PostApiAuthVerifyOtpBody
from ...models.post_api_auth_verify_otp_response_200 import (
    PostApiAuthVerifyOtpResponse200,
)
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: PostApiAuthVerifyOtpBody | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/auth/verify-otp",
    }

    if not isinstance(body, Unset):
        _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorEnvelope | PostApiAuthVerifyOtpResponse200:
    if response.status_code == 200:
        response_200 = PostApiAuthVerifyOtpResponse200.from_dict(response.json())

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
) -> Response[ErrorEnvelope | PostApiAuthVerifyOtpResponse200]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: PostApiAuthVerifyOtpBody | Unset = UNSET,
) -> Response[ErrorEnvelope | PostApiAuthVerifyOtpResponse200]:
    """Exchange the code for a session JWT; the first login creates the user and a personal workspace
    (owner). Past OTP_MAX_FAILED_VERIFY_PER_HOUR_PER_IP wrong codes in an hour from one client IP, 429
    rate_limit.exceeded with Retry-After

    Args:
        body (PostApiAuthVerifyOtpBody | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | PostApiAuthVerifyOtpResponse200]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    body: PostApiAuthVerifyOtpBody | Unset = UNSET,
) -> ErrorEnvelope | PostApiAuthVerifyOtpResponse200 | None:
    """Exchange the code for a session JWT; the first login creates the user and a personal workspace
    (owner). Past OTP_MAX_FAILED_VERIFY_PER_HOUR_PER_IP wrong codes in an hour from one client IP, 429
    rate_limit.exceeded with Retry-After

    Args:
        body (PostApiAuthVerifyOtpBody | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | PostApiAuthVerifyOtpResponse200
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: PostApiAuthVerifyOtpBody | Unset = UNSET,
) -> Response[ErrorEnvelope | PostApiAuthVerifyOtpResponse200]:
    """Exchange the code for a session JWT; the first login creates the user and a personal workspace
    (owner). Past OTP_MAX_FAILED_VERIFY_PER_HOUR_PER_IP wrong codes in an hour from one client IP, 429
    rate_limit.exceeded with Retry-After

    Args:
        body (PostApiAuthVerifyOtpBody | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | PostApiAuthVerifyOtpResponse200]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    body: PostApiAuthVerifyOtpBody | Unset = UNSET,
) -> ErrorEnvelope | PostApiAuthVerifyOtpResponse200 | None:
    """Exchange the code for a session JWT; the first login creates the user and a personal workspace
    (owner). Past OTP_MAX_FAILED_VERIFY_PER_HOUR_PER_IP wrong codes in an hour from one client IP, 429
    rate_limit.exceeded with Retry-After

    Args:
        body (PostApiAuthVerifyOtpBody | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | PostApiAuthVerifyOtpResponse200
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
