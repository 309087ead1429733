"""Kafka protocol error codes as the Apache tools name and word them.

The Apache tools print an error as its Java exception, ``<class>: <message>``; scripts and
people grep for those texts, so our outputs use the same ones. Codes outside this table
fall back to the name the protocol library gives.
"""

from __future__ import annotations

from dataclasses import dataclass

JAVA_ERRORS_PACKAGE = "org.apache.kafka.common.errors"

# code: (protocol name, Java exception class, default message)
_KNOWN: dict[int, tuple[str, str, str]] = {
    -1: (
        "UNKNOWN_SERVER_ERROR",
        "UnknownServerException",
        "The server experienced an unexpected error when processing the request.",
    ),
    3: (
        "UNKNOWN_TOPIC_OR_PARTITION",
        "UnknownTopicOrPartitionException",
        "This server does not host this topic-partition.",
    ),
    7: ("REQUEST_TIMED_OUT", "TimeoutException", "The request timed out."),
    14: (
        "COORDINATOR_LOAD_IN_PROGRESS",
        "CoordinatorLoadInProgressException",
        "The coordinator is loading and hence can't process requests.",
    ),
    15: (
        "COORDINATOR_NOT_AVAILABLE",
        "CoordinatorNotAvailableException",
        "The coordinator is not available.",
    ),
    16: ("NOT_COORDINATOR", "NotCoordinatorException", "This is not the correct coordinator."),
    17: (
        "INVALID_TOPIC_EXCEPTION",
        "InvalidTopicException",
        "The request attempted to perform an operation on an invalid topic.",
    ),
    24: ("INVALID_GROUP_ID", "InvalidGroupIdException", "The group id is invalid."),
    29: ("TOPIC_AUTHORIZATION_FAILED", "TopicAuthorizationException", "Topic authorization failed."),
    30: ("GROUP_AUTHORIZATION_FAILED", "GroupAuthorizationException", "Group authorization failed."),
    31: ("CLUSTER_AUTHORIZATION_FAILED", "ClusterAuthorizationException", "Cluster authorization failed."),
    35: ("UNSUPPORTED_VERSION", "UnsupportedVersionException", "The version of API is not supported."),
    68: ("NON_EMPTY_GROUP", "GroupNotEmptyException", "The group is not empty."),
    69: ("GROUP_ID_NOT_FOUND", "GroupIdNotFoundException", "The group id does not exist."),
    86: (
        "GROUP_SUBSCRIBED_TO_TOPIC",
        "GroupSubscribedToTopicException",
        "Deleting offsets of a topic is forbidden while the consumer group is actively subscribed to it.",
    ),
}

UNKNOWN_TOPIC_OR_PARTITION = 3
GROUP_ID_NOT_FOUND = 69
# Errors a client retries: the group's coordinator is moving or loading.
RETRIABLE_COORDINATOR_ERRORS = frozenset({14, 15, 16})


@dataclass(frozen=True)
class KafkaErrorInfo:
    code: int
    name: str  # the protocol name, e.g. GROUP_ID_NOT_FOUND
    exception: str  # the Java exception class, e.g. GroupIdNotFoundException (or a qualified name)
    message: str

    @property
    def java(self) -> str:
        """The exception as the Apache tools print it (``Throwable.toString()``)."""
        name = self.exception if "." in self.exception else f"{JAVA_ERRORS_PACKAGE}.{self.exception}"
        return f"{name}: {self.message}"


def error_info(code: int, fallback_name: str = "", fallback_message: str = "") -> KafkaErrorInfo:
    """The Apache wording of error ``code``; codes we do not list keep the library's name."""
    if code in _KNOWN:
        name, exception, message = _KNOWN[code]
        return KafkaErrorInfo(code, name, exception, message)
    name = fallback_name or f"ERROR_{code}"
    exception = "".join(part.capitalize() for part in name.lower().split("_")) + "Exception"
    return KafkaErrorInfo(code, name, exception, fallback_message or name)


AUTHORIZATION_RESOURCES = {29: "topic", 30: "group", 31: "cluster"}


def denied(code: int | None, needs: dict[str, str]) -> str | None:
    """For an authorization error, the one line naming what the principal lacks: ``needs``
    maps a resource kind (topic, group, cluster) to the ACL that the action takes on it, such
    as ``{"group": "READ on group 'g'"}``. None for any other error."""
    resource = AUTHORIZATION_RESOURCES.get(code) if code is not None else None
    if resource is None:
        return None
    assert code is not None
    name = error_info(code).name
    if resource in needs:
        return f"not authorized: the principal needs {needs[resource]} ({name})"
    return f"not authorized ({name})"
