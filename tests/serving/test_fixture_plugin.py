from types import SimpleNamespace

from tests.fixtures import vllm as plugin


def test_tests_needing_the_server_get_a_setup_sized_timeout():
    marked = []
    needs = SimpleNamespace(fixturenames=["tmp_path", "vllm_server"], add_marker=marked.append)
    other = SimpleNamespace(fixturenames=["tmp_path"], add_marker=lambda m: marked.append(("wrong", m)))
    plugin.pytest_collection_modifyitems(None, [needs, other])
    assert len(marked) == 1
    assert marked[0].name == "timeout" and marked[0].args == (plugin.SETUP_TIMEOUT_S,)
    assert plugin.SETUP_TIMEOUT_S >= 1200
