# One image for both roles: the compose file runs it as `api` and as `worker`.
FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY api ./api
COPY worker ./worker
COPY shared ./shared
COPY migrations ./migrations
COPY scripts ./scripts
COPY web ./web
USER node
EXPOSE 3000
CMD ["node", "api/server.ts"]
