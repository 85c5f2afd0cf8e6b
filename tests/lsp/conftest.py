"""The language server's tests: a real client over stdio (pytest-lsp) and a fresh copy
of the fixture project for each test."""

from __future__ import annotations

from pathlib import Path

import pytest
import pytest_lsp
from lsp_support import SERVER_COMMAND, copy_station, make_client
from pytest_lsp import ClientServerConfig, LanguageClient


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_COMMAND, client_factory=make_client))
async def client(lsp_client: LanguageClient):
    yield
    await lsp_client.shutdown_session()


@pytest.fixture
def station(tmp_path: Path) -> Path:
    return copy_station(tmp_path)
