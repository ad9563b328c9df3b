"""Drives an actor's A2A surface with the official Python client, `a2a-sdk` 1.x, as its README and
samples/cli.py use it (issue 39): resolves the card, sends a message and waits for its answer,
streams one, gets a task, subscribes to a streamed task in progress after leaving its stream,
cancels a task in progress, asks for a task that does not exist.

    python a2a_client.py <actor base URL> <binding: JSONRPC | HTTP+JSON> [API key]

Prints one JSON object of what it saw on standard output; the vitest file asserts it.
"""

import asyncio
import json
import sys
import uuid

import httpx

from a2a.client import A2ACardResolver, ClientConfig, create_client
from a2a.helpers import get_artifact_text, get_message_text
from a2a.utils.errors import TaskNotCancelableError, UnsupportedOperationError
from a2a.types import (
    CancelTaskRequest,
    GetTaskRequest,
    Message,
    Part,
    Role,
    SendMessageConfiguration,
    SendMessageRequest,
    SubscribeToTaskRequest,
    TaskState,
)


def user_message(text: str) -> Message:
    return Message(role=Role.ROLE_USER, message_id=str(uuid.uuid4()), parts=[Part(text=text)])


async def collect(stream) -> dict:
    """The events of one send: the task's id, its states in order, the text of its artifacts or message."""
    seen = {'task_id': None, 'states': [], 'text': '', 'kinds': []}
    async for event in stream:
        kind = event.WhichOneof('payload')
        seen['kinds'].append(kind)
        if kind == 'message':
            seen['text'] += get_message_text(event.message, delimiter='')
        elif kind == 'task':
            seen['task_id'] = event.task.id
            seen['states'].append(TaskState.Name(event.task.status.state))
            for artifact in event.task.artifacts:
                seen['text'] += get_artifact_text(artifact, delimiter='')
        elif kind == 'status_update':
            seen['task_id'] = seen['task_id'] or event.status_update.task_id
            seen['states'].append(TaskState.Name(event.status_update.status.state))
        elif kind == 'artifact_update':
            seen['text'] += get_artifact_text(event.artifact_update.artifact, delimiter='')
    return seen


async def main() -> None:
    url, binding = sys.argv[1], sys.argv[2]
    headers = {'X-API-Key': sys.argv[3]} if len(sys.argv) > 3 else {}
    report: dict = {}
    async with httpx.AsyncClient(headers=headers, timeout=30) as http:
        card = await A2ACardResolver(http, url).get_agent_card()
        report['card'] = {
            'name': card.name,
            'skills': [skill.id for skill in card.skills],
            'streaming': card.capabilities.streaming,
            'bindings': [interface.protocol_binding for interface in card.supported_interfaces],
        }

        def client_of(streaming: bool):
            config = ClientConfig(
                streaming=streaming, httpx_client=http, supported_protocol_bindings=[binding]
            )
            return create_client(card, client_config=config)

        whole = await client_of(False)
        report['sent'] = await collect(whole.send_message(SendMessageRequest(message=user_message('hello'))))
        streaming = await client_of(True)
        report['streamed'] = await collect(
            streaming.send_message(SendMessageRequest(message=user_message('stream it')))
        )
        task_id = report['streamed']['task_id']
        got = await whole.get_task(GetTaskRequest(id=task_id))
        report['got'] = {'id': got.id, 'state': TaskState.Name(got.status.state), 'context_id': got.context_id}

        # Leave a stream after its first text, then subscribe to its task: the task as it is first
        # (its text so far in its artifact), then the rest.
        left = streaming.send_message(SendMessageRequest(message=user_message('follow me')))
        left_task_id = None
        async for event in left:
            if event.WhichOneof('payload') == 'task':
                left_task_id = event.task.id
            if event.WhichOneof('payload') == 'artifact_update':
                break
        await left.aclose()
        try:
            report['subscribed'] = await collect(streaming.subscribe(SubscribeToTaskRequest(id=left_task_id)))
        except UnsupportedOperationError as error:  # A2A's answer when the task ended first (a fast agent)
            report['subscribed'] = {'refused': type(error).__name__, 'detail': str(error)}

        slow = await collect(
            whole.send_message(
                SendMessageRequest(
                    message=user_message('slow'),
                    configuration=SendMessageConfiguration(return_immediately=True),
                )
            )
        )
        try:
            cancelled = await whole.cancel_task(CancelTaskRequest(id=slow['task_id']))
            report['cancelled'] = {'before': slow['states'], 'after': TaskState.Name(cancelled.status.state)}
        except TaskNotCancelableError as error:  # A2A's answer when the task ended first (a fast agent)
            report['cancelled'] = {'before': slow['states'], 'refused': type(error).__name__}
        try:
            await whole.get_task(GetTaskRequest(id='inv_nope'))
            report['missing'] = 'found'
        except Exception as error:  # the SDK's own error type for A2A's "task not found"
            report['missing'] = type(error).__name__
    print(json.dumps(report))


if __name__ == '__main__':
    asyncio.run(main())
