# One image for every service; the compose file picks the entry point per service.
# Node.js 26 is the current LTS (Node 20 reached its end of life in April 2026); CI also runs everything on Node 20.
ARG NODE_IMAGE=node:26-trixie-slim
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev

FROM ${NODE_IMAGE}
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
USER node
CMD ["node", "dist/apps/api-gateway/src/main.js"]
