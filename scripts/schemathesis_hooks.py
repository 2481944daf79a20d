"""Schemathesis hooks for the api's run (api/tests/it/openapi/schemathesis.rs).

The tus PATCH body (application/offset+octet-stream) is raw bytes, as schemathesis already
sends application/octet-stream; it only needs to be told that this media type is bytes too.
"""

import schemathesis
from schemathesis.transport.requests import binary_serializer


@schemathesis.serializer("application/offset+octet-stream")
def offset_octet_stream(ctx, value):
    return binary_serializer(ctx, value)
