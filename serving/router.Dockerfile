# vllm-router in front of the vLLM replicas (docker-compose.yml's `router` service).
# The same pinned version as the LLM environment the router benchmark runs in: the PyPI
# wheel carries the Rust binary, so nothing is compiled here.
FROM python:3.11-slim
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
COPY local/vllm-constraints.txt /tmp/vllm-constraints.txt
RUN pip install -c /tmp/vllm-constraints.txt vllm-router==0.1.17 \
    && useradd --create-home --uid 10001 router
USER router
EXPOSE 8000 29000
ENTRYPOINT ["vllm-router"]
