from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_envelope import ErrorEnvelope
from ...models.post_api_compute_billing_stripe_events_body import (
    PostApiComputeBillingStripeEventsBody,
)
from ...models.post_api_compute_billing_stripe_events_response_200 import (
    PostApiComputeBillingStripeEventsResponse200,
)
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: PostApiComputeBillingStripeEventsBody | Unset = UNSET,
    stripe_signature: str,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    headers["Stripe-Signature"] = stripe_signature

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/compute/billing/stripe-events",
    }

    if not isinstance(body, Unset):
        _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorEnvelope | PostApiComputeBillingStripeEventsResponse200 | None:
    if response.status_code == 200:
        response_200 = PostApiComputeBillingStripeEventsResponse200.from_dict(
            response.json()
        )

        return response_200

    if response.status_code == 403:
        response_403 = ErrorEnvelope.from_dict(response.json())

        return response_403

    if response.status_code == 413:
        response_413 = ErrorEnvelope.from_dict(response.json())

        return response_413

    if response.status_code == 503:
        response_503 = ErrorEnvelope.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[ErrorEnvelope | PostApiComputeBillingStripeEventsResponse200]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: PostApiComputeBillingStripeEventsBody | Unset = UNSET,
    stripe_signature: str,
) -> Response[ErrorEnvelope | PostApiComputeBillingStripeEventsResponse200]:
    """Stripe's signed events: the body checked against STRIPE_WEBHOOK_SECRET (Stripe-Signature, 300 s
    tolerance), each event applied once (its id kept with its effect).
    checkout.session.completed|expired, customer.subscription.created|updated|deleted set plan and
    status, ordered by the event's own time; invoice.paid marks our invoice paid; invoice.payment_failed
    sets past_due. Called by Stripe only

    Args:
        stripe_signature (str): t=<unix seconds>,v1=<HMAC-SHA256 hex>
        body (PostApiComputeBillingStripeEventsBody | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | PostApiComputeBillingStripeEventsResponse200]
    """

    kwargs = _get_kwargs(
        body=body,
        stripe_signature=stripe_signature,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    body: PostApiComputeBillingStripeEventsBody | Unset = UNSET,
    stripe_signature: str,
) -> ErrorEnvelope | PostApiComputeBillingStripeEventsResponse200 | None:
    """Stripe's signed events: the body checked against STRIPE_WEBHOOK_SECRET (Stripe-Signature, 300 s
    tolerance), each event applied once (its id kept with its effect).
    checkout.session.completed|expired, customer.subscription.created|updated|deleted set plan and
    status, ordered by the event's own time; invoice.paid marks our invoice paid; invoice.payment_failed
    sets past_due. Called by Stripe only

    Args:
        stripe_signature (str): t=<unix seconds>,v1=<HMAC-SHA256 hex>
        body (PostApiComputeBillingStripeEventsBody | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | PostApiComputeBillingStripeEventsResponse200
    """

    return sync_detailed(
        client=client,
        body=body,
        stripe_signature=stripe_signature,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: PostApiComputeBillingStripeEventsBody | Unset = UNSET,
    stripe_signature: str,
) -> Response[ErrorEnvelope | PostApiComputeBillingStripeEventsResponse200]:
    """Stripe's signed events: the body checked against STRIPE_WEBHOOK_SECRET (Stripe-Signature, 300 s
    tolerance), each event applied once (its id kept with its effect).
    checkout.session.completed|expired, customer.subscription.created|updated|deleted set plan and
    status, ordered by the event's own time; invoice.paid marks our invoice paid; invoice.payment_failed
    sets past_due. Called by Stripe only

    Args:
        stripe_signature (str): t=<unix seconds>,v1=<HMAC-SHA256 hex>
        body (PostApiComputeBillingStripeEventsBody | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | PostApiComputeBillingStripeEventsResponse200]
    """

    kwargs = _get_kwargs(
        body=body,
        stripe_signature=stripe_signature,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    body: PostApiComputeBillingStripeEventsBody | Unset = UNSET,
    stripe_signature: str,
) -> ErrorEnvelope | PostApiComputeBillingStripeEventsResponse200 | None:
    """Stripe's signed events: the body checked against STRIPE_WEBHOOK_SECRET (Stripe-Signature, 300 s
    tolerance), each event applied once (its id kept with its effect).
    checkout.session.completed|expired, customer.subscription.created|updated|deleted set plan and
    status, ordered by the event's own time; invoice.paid marks our invoice paid; invoice.payment_failed
    sets past_due. Called by Stripe only

    Args:
        stripe_signature (str): t=<unix seconds>,v1=<HMAC-SHA256 hex>
        body (PostApiComputeBillingStripeEventsBody | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | PostApiComputeBillingStripeEventsResponse200
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            stripe_signature=stripe_signature,
        )
    ).parsed
