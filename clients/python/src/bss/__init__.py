"""Python client of the Behavioral Simulation Service.

    import bss
    client = bss.Client()  # BSS_API_URL, BSS_API_KEY
    df = client.simulate("finance", 1000, seed=42).to_pandas()
"""

from ._client import DEFAULT_API_URL, VERSION, Client, Format, RunStatus
from ._errors import ApiConnectionError, ApiError, BssError, IncompleteBodyError
from ._keys import ApiKeys
from ._models import Models
from ._records import Record, RecordStream
from ._results import Download, SimulationResult
from ._streams import StreamEnvelope, StreamEvents, Streams
from ._transport import RetryNotice
from .types import (
    Account,
    ApiKey,
    ApiKeyCreated,
    ApiKeyCreatedOrReplayed,
    ApiKeyReplayed,
    ApiKeyRevoked,
    ApiKeyRolled,
    Model,
    ModelDefinition,
    ModelValidation,
    Preset,
    PresetFidelity,
    CreatedStream,
    Run,
    SimulationMetadata,
    Stream,
    StreamList,
    Usage,
)

__version__ = VERSION

__all__ = [
    "DEFAULT_API_URL",
    "Account",
    "ApiConnectionError",
    "ApiError",
    "ApiKey",
    "ApiKeyCreated",
    "ApiKeyCreatedOrReplayed",
    "ApiKeyReplayed",
    "ApiKeyRevoked",
    "ApiKeyRolled",
    "ApiKeys",
    "BssError",
    "Client",
    "CreatedStream",
    "Download",
    "Format",
    "IncompleteBodyError",
    "Model",
    "ModelDefinition",
    "ModelValidation",
    "Models",
    "Preset",
    "PresetFidelity",
    "Record",
    "RecordStream",
    "RetryNotice",
    "Run",
    "RunStatus",
    "SimulationMetadata",
    "SimulationResult",
    "Stream",
    "StreamEnvelope",
    "StreamEvents",
    "StreamList",
    "Streams",
    "Usage",
    "__version__",
]
