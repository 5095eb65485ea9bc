// The OpenAPI 3.1 document of every endpoint, served at /openapi.json: the endpoint tables of *Serving a catalog*, *Fleet state*
// and *The admin page* as a contract. ContractTests checks every answer of the endpoint tables against it, and
// schemathesis (Tests/Contract) fuzzes a live server with it. Change it with the endpoint it describes.
enum OpenAPIDocument {
    static let json = #"""
{
  "openapi": "3.1.0",
  "info": {
    "title": "mdmconf serve",
    "version": "1.0.0",
    "description": "Configurations, schemas, update decisions and policy answers for client apps; check-ins and fleet state for admins (*Serving a catalog*, *Fleet state*); the admin page (*The admin page*). Every answer carries X-MDMConf-Catalog-Generation; errors have one shape (Error)."
  },
  "servers": [
    {
      "url": "/"
    }
  ],
  "tags": [
    {
      "name": "devices"
    },
    {
      "name": "admin"
    },
    {
      "name": "operations"
    },
    {
      "name": "admin page"
    }
  ],
  "paths": {
    "/v1/apps/{bundleId}/config": {
      "get": {
        "operationId": "getConfig",
        "summary": "The caller's configuration",
        "responses": {
          "200": {
            "description": "The configuration, XML plist or JSON by Accept; a strong ETag per form",
            "headers": {
              "ETag": {
                "schema": {
                  "type": "string"
                }
              },
              "X-MDMConf-Catalog-Generation": {
                "schema": {
                  "type": "string"
                },
                "description": "The catalog generation that answered."
              }
            },
            "content": {
              "application/x-plist": {
                "schema": {
                  "type": "string"
                }
              },
              "application/json": {
                "schema": {
                  "type": "object"
                }
              }
            }
          },
          "304": {
            "description": "If-None-Match matched the current ETag"
          },
          "400": {
            "$ref": "#/components/responses/E400"
          },
          "401": {
            "$ref": "#/components/responses/E401"
          },
          "403": {
            "$ref": "#/components/responses/E403"
          },
          "404": {
            "$ref": "#/components/responses/E404"
          },
          "406": {
            "$ref": "#/components/responses/E406"
          }
        },
        "security": [
          {
            "bearer": []
          }
        ],
        "parameters": [
          {
            "name": "bundleId",
            "in": "path",
            "required": true,
            "schema": {
              "type": "string",
              "pattern": "^[A-Za-z0-9-]+(\\.[A-Za-z0-9-]+)*$",
              "maxLength": 255
            },
            "description": "The app's bundle id."
          },
          {
            "name": "device",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string"
            },
            "description": "admin or development mode: the inventory device whose configuration to serve"
          }
        ],
        "tags": [
          "devices"
        ]
      }
    },
    "/v1/apps/{bundleId}/schema": {
      "get": {
        "operationId": "getSchema",
        "summary": "The app's schema as JSON",
        "responses": {
          "200": {
            "description": "JSON",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Schema"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/E400"
          },
          "401": {
            "$ref": "#/components/responses/E401"
          },
          "404": {
            "$ref": "#/components/responses/E404"
          }
        },
        "security": [
          {
            "bearer": []
          }
        ],
        "parameters": [
          {
            "name": "bundleId",
            "in": "path",
            "required": true,
            "schema": {
              "type": "string",
              "pattern": "^[A-Za-z0-9-]+(\\.[A-Za-z0-9-]+)*$",
              "maxLength": 255
            },
            "description": "The app's bundle id."
          }
        ],
        "tags": [
          "devices"
        ]
      }
    },
    "/v1/update-check": {
      "post": {
        "operationId": "postUpdateCheck",
        "summary": "An update decision",
        "responses": {
          "200": {
            "description": "JSON",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Decision"
                }
              }
            }
          },
          "422": {
            "description": "An invalid request: the error decision with one reason per bad field",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Decision"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/E400"
          },
          "401": {
            "$ref": "#/components/responses/E401"
          },
          "404": {
            "$ref": "#/components/responses/E404"
          },
          "413": {
            "$ref": "#/components/responses/E413"
          }
        },
        "security": [
          {
            "bearer": []
          }
        ],
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/UpdateRequest"
              }
            }
          }
        },
        "tags": [
          "devices"
        ]
      },
      "get": {
        "operationId": "getUpdateCheck",
        "summary": "An update decision from query parameters",
        "responses": {
          "200": {
            "description": "JSON",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Decision"
                }
              }
            }
          },
          "422": {
            "description": "An invalid request",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Decision"
                }
              }
            }
          },
          "401": {
            "$ref": "#/components/responses/E401"
          },
          "404": {
            "$ref": "#/components/responses/E404"
          }
        },
        "security": [
          {
            "bearer": []
          }
        ],
        "parameters": [
          {
            "name": "app",
            "in": "query",
            "required": true,
            "schema": {
              "type": "string"
            },
            "description": ""
          },
          {
            "name": "version",
            "in": "query",
            "required": true,
            "schema": {
              "type": "string"
            },
            "description": ""
          },
          {
            "name": "build",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string"
            },
            "description": ""
          },
          {
            "name": "platform",
            "in": "query",
            "required": true,
            "schema": {
              "type": "string"
            },
            "description": ""
          },
          {
            "name": "osVersion",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string"
            },
            "description": ""
          },
          {
            "name": "deviceModel",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string"
            },
            "description": ""
          },
          {
            "name": "deviceId",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string"
            },
            "description": ""
          },
          {
            "name": "channel",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string"
            },
            "description": ""
          },
          {
            "name": "locale",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string"
            },
            "description": ""
          },
          {
            "name": "timeZone",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string"
            },
            "description": ""
          },
          {
            "name": "now",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string"
            },
            "description": ""
          },
          {
            "name": "deferralsUsed",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string"
            },
            "description": ""
          },
          {
            "name": "enrolledAt",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string"
            },
            "description": ""
          }
        ],
        "tags": [
          "devices"
        ]
      }
    },
    "/v1/policy/evaluate": {
      "post": {
        "operationId": "evaluatePolicy",
        "summary": "A device-policy answer",
        "responses": {
          "200": {
            "description": "JSON",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/PolicyAnswer"
                }
              }
            }
          },
          "422": {
            "description": "An invalid query or inline profile",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/E400"
          },
          "401": {
            "$ref": "#/components/responses/E401"
          },
          "413": {
            "$ref": "#/components/responses/E413"
          }
        },
        "security": [
          {
            "bearer": []
          }
        ],
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "type": "object",
                "required": [
                  "query"
                ],
                "properties": {
                  "query": {
                    "type": "object",
                    "required": [
                      "type"
                    ],
                    "properties": {
                      "type": {
                        "enum": [
                          "app",
                          "url",
                          "wifi",
                          "kiosk",
                          "vpn",
                          "asam",
                          "restriction"
                        ]
                      },
                      "arg": {
                        "type": "string"
                      },
                      "ssidHex": {
                        "type": "string"
                      },
                      "hidden": {
                        "type": "boolean"
                      },
                      "at": {
                        "type": "string"
                      },
                      "trace": {
                        "type": "boolean"
                      }
                    }
                  },
                  "profiles": {
                    "type": "array",
                    "items": {
                      "type": "object",
                      "required": [
                        "name"
                      ],
                      "properties": {
                        "name": {
                          "type": "string"
                        },
                        "xml": {
                          "type": "string"
                        },
                        "base64": {
                          "type": "string"
                        }
                      }
                    }
                  }
                }
              }
            }
          }
        },
        "tags": [
          "devices"
        ]
      }
    },
    "/v1/validate": {
      "post": {
        "operationId": "validateConfig",
        "summary": "Validate a configuration against an app's schema (admin)",
        "responses": {
          "200": {
            "description": "JSON",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/ValidationReport"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/E400"
          },
          "401": {
            "$ref": "#/components/responses/E401"
          },
          "403": {
            "$ref": "#/components/responses/E403"
          },
          "404": {
            "$ref": "#/components/responses/E404"
          },
          "413": {
            "$ref": "#/components/responses/E413"
          }
        },
        "security": [
          {
            "bearer": []
          }
        ],
        "parameters": [
          {
            "name": "app",
            "in": "query",
            "required": true,
            "schema": {
              "type": "string"
            },
            "description": ""
          }
        ],
        "requestBody": {
          "required": true,
          "content": {
            "application/x-plist": {
              "schema": {
                "type": "string"
              }
            },
            "application/json": {
              "schema": {}
            }
          }
        },
        "tags": [
          "admin"
        ]
      }
    },
    "/v1/checkin": {
      "post": {
        "operationId": "checkIn",
        "summary": "A device checks in",
        "responses": {
          "200": {
            "description": "JSON",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/CheckInAnswer"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/E400"
          },
          "401": {
            "$ref": "#/components/responses/E401"
          },
          "403": {
            "$ref": "#/components/responses/E403"
          },
          "404": {
            "$ref": "#/components/responses/E404"
          },
          "413": {
            "$ref": "#/components/responses/E413"
          },
          "422": {
            "$ref": "#/components/responses/E422"
          },
          "503": {
            "$ref": "#/components/responses/E503"
          }
        },
        "description": "200 only after the check-in is committed to the store; 503 with Retry-After when the store cannot take it; 404 with --store none.",
        "security": [
          {
            "bearer": []
          }
        ],
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/CheckIn"
              }
            }
          }
        },
        "tags": [
          "devices"
        ]
      }
    },
    "/v1/fleet/summary": {
      "get": {
        "operationId": "fleetSummary",
        "summary": "Fleet counts (admin)",
        "responses": {
          "200": {
            "description": "JSON",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/FleetSummary"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/E400"
          },
          "401": {
            "$ref": "#/components/responses/E401"
          },
          "403": {
            "$ref": "#/components/responses/E403"
          },
          "404": {
            "$ref": "#/components/responses/E404"
          },
          "503": {
            "$ref": "#/components/responses/E503"
          }
        },
        "security": [
          {
            "bearer": []
          }
        ],
        "parameters": [
          {
            "name": "app",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string"
            },
            "description": "only devices assigned or reporting this app"
          },
          {
            "name": "status",
            "in": "query",
            "required": false,
            "schema": {
              "enum": [
                "compliant",
                "noncompliant",
                "silent"
              ]
            },
            "description": ""
          },
          {
            "name": "decision",
            "in": "query",
            "required": false,
            "schema": {
              "enum": [
                "ok",
                "recommended",
                "required",
                "unsupported",
                "error"
              ]
            },
            "description": ""
          }
        ],
        "tags": [
          "admin"
        ]
      }
    },
    "/v1/fleet/devices": {
      "get": {
        "operationId": "fleetDevices",
        "summary": "Devices with their compliance (admin), keyset pages",
        "responses": {
          "200": {
            "description": "A page of devices",
            "headers": {
              "X-MDMConf-Next-Page": {
                "schema": {
                  "type": "string"
                }
              }
            },
            "content": {
              "application/json": {
                "schema": {
                  "type": "object",
                  "required": [
                    "generatedAt",
                    "catalogGeneration",
                    "devices",
                    "next"
                  ],
                  "properties": {
                    "generatedAt": {
                      "type": "string"
                    },
                    "catalogGeneration": {
                      "type": "integer"
                    },
                    "devices": {
                      "type": "array",
                      "items": {
                        "$ref": "#/components/schemas/Device"
                      }
                    },
                    "next": {
                      "type": [
                        "string",
                        "null"
                      ]
                    }
                  }
                }
              },
              "text/csv": {
                "schema": {
                  "type": "string"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/E400"
          },
          "401": {
            "$ref": "#/components/responses/E401"
          },
          "403": {
            "$ref": "#/components/responses/E403"
          },
          "404": {
            "$ref": "#/components/responses/E404"
          },
          "503": {
            "$ref": "#/components/responses/E503"
          }
        },
        "security": [
          {
            "bearer": []
          }
        ],
        "parameters": [
          {
            "name": "app",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string"
            },
            "description": "only devices assigned or reporting this app"
          },
          {
            "name": "status",
            "in": "query",
            "required": false,
            "schema": {
              "enum": [
                "compliant",
                "noncompliant",
                "silent"
              ]
            },
            "description": ""
          },
          {
            "name": "decision",
            "in": "query",
            "required": false,
            "schema": {
              "enum": [
                "ok",
                "recommended",
                "required",
                "unsupported",
                "error"
              ]
            },
            "description": ""
          },
          {
            "name": "limit",
            "in": "query",
            "required": false,
            "schema": {
              "type": "integer",
              "minimum": 1,
              "maximum": 1000
            },
            "description": ""
          },
          {
            "name": "page",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string"
            },
            "description": "the cursor of the previous page's next"
          }
        ],
        "tags": [
          "admin"
        ]
      }
    },
    "/v1/fleet/devices/{id}": {
      "get": {
        "operationId": "fleetDevice",
        "summary": "One device with its recent check-ins (admin)",
        "responses": {
          "200": {
            "description": "JSON",
            "content": {
              "application/json": {
                "schema": {
                  "allOf": [
                    {
                      "$ref": "#/components/schemas/Device"
                    },
                    {
                      "type": "object",
                      "required": [
                        "recentCheckins"
                      ],
                      "properties": {
                        "recentCheckins": {
                          "type": "array"
                        }
                      }
                    }
                  ]
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/E400"
          },
          "401": {
            "$ref": "#/components/responses/E401"
          },
          "403": {
            "$ref": "#/components/responses/E403"
          },
          "404": {
            "$ref": "#/components/responses/E404"
          },
          "503": {
            "$ref": "#/components/responses/E503"
          }
        },
        "security": [
          {
            "bearer": []
          }
        ],
        "parameters": [
          {
            "name": "id",
            "in": "path",
            "required": true,
            "schema": {
              "type": "string"
            }
          }
        ],
        "tags": [
          "admin"
        ]
      }
    },
    "/v1/fleet/trend": {
      "get": {
        "operationId": "fleetTrend",
        "summary": "Daily compliance per app (admin)",
        "responses": {
          "200": {
            "description": "JSON",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/FleetTrend"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/E400"
          },
          "401": {
            "$ref": "#/components/responses/E401"
          },
          "403": {
            "$ref": "#/components/responses/E403"
          },
          "404": {
            "$ref": "#/components/responses/E404"
          },
          "503": {
            "$ref": "#/components/responses/E503"
          }
        },
        "security": [
          {
            "bearer": []
          }
        ],
        "parameters": [
          {
            "name": "app",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string"
            },
            "description": ""
          },
          {
            "name": "days",
            "in": "query",
            "required": false,
            "schema": {
              "type": "integer",
              "minimum": 1,
              "maximum": 400
            },
            "description": ""
          }
        ],
        "tags": [
          "admin"
        ]
      }
    },
    "/healthz": {
      "get": {
        "operationId": "healthz",
        "summary": "Liveness",
        "responses": {
          "200": {
            "description": "JSON",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object",
                  "required": [
                    "status"
                  ],
                  "properties": {
                    "status": {
                      "const": "ok"
                    }
                  }
                }
              }
            }
          }
        },
        "security": [],
        "tags": [
          "operations"
        ]
      }
    },
    "/readyz": {
      "get": {
        "operationId": "readyz",
        "summary": "Readiness: the served generation, the last failed reload, the store",
        "responses": {
          "200": {
            "description": "JSON",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Ready"
                }
              }
            }
          }
        },
        "security": [],
        "tags": [
          "operations"
        ]
      }
    },
    "/metrics": {
      "get": {
        "operationId": "metrics",
        "summary": "Prometheus metrics",
        "responses": {
          "200": {
            "description": "Prometheus text format",
            "content": {
              "text/plain": {
                "schema": {
                  "type": "string"
                }
              }
            }
          }
        },
        "security": [],
        "tags": [
          "operations"
        ]
      }
    },
    "/openapi.json": {
      "get": {
        "operationId": "openapi",
        "summary": "This document",
        "responses": {
          "200": {
            "description": "OpenAPI 3.1",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object"
                }
              }
            }
          }
        },
        "security": [],
        "tags": [
          "operations"
        ]
      }
    },
    "/admin": {
      "get": {
        "operationId": "adminOverview",
        "summary": "Admin page: overview",
        "responses": {
          "200": {
            "description": "An HTML page of the admin page",
            "content": {
              "text/html": {
                "schema": {
                  "type": "string"
                }
              }
            }
          },
          "303": {
            "description": "To the login form (no session) or the next page",
            "headers": {
              "Location": {
                "schema": {
                  "type": "string"
                }
              }
            }
          }
        },
        "security": [
          {
            "session": []
          },
          {}
        ],
        "tags": [
          "admin page"
        ]
      }
    },
    "/admin/style.css": {
      "get": {
        "operationId": "adminStyle",
        "summary": "The admin page's stylesheet",
        "responses": {
          "200": {
            "description": "CSS",
            "content": {
              "text/css": {
                "schema": {
                  "type": "string"
                }
              }
            }
          }
        },
        "security": [],
        "tags": [
          "admin page"
        ]
      }
    },
    "/admin/login": {
      "get": {
        "operationId": "adminLoginForm",
        "summary": "Login form",
        "responses": {
          "200": {
            "description": "An HTML page of the admin page",
            "content": {
              "text/html": {
                "schema": {
                  "type": "string"
                }
              }
            }
          },
          "303": {
            "description": "To the login form (no session) or the next page",
            "headers": {
              "Location": {
                "schema": {
                  "type": "string"
                }
              }
            }
          }
        },
        "security": [],
        "parameters": [
          {
            "name": "next",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string"
            },
            "description": ""
          }
        ],
        "tags": [
          "admin page"
        ]
      },
      "post": {
        "operationId": "adminLogin",
        "summary": "Exchange an admin token for a session cookie",
        "responses": {
          "303": {
            "description": "To the login form (no session) or the next page",
            "headers": {
              "Location": {
                "schema": {
                  "type": "string"
                }
              }
            }
          },
          "401": {
            "description": "An HTML page of the admin page",
            "content": {
              "text/html": {
                "schema": {
                  "type": "string"
                }
              }
            }
          },
          "403": {
            "description": "An HTML page of the admin page",
            "content": {
              "text/html": {
                "schema": {
                  "type": "string"
                }
              }
            }
          }
        },
        "security": [],
        "requestBody": {
          "required": true,
          "content": {
            "application/x-www-form-urlencoded": {
              "schema": {
                "type": "object",
                "required": [
                  "csrf",
                  "token"
                ],
                "properties": {
                  "csrf": {
                    "type": "string"
                  },
                  "token": {
                    "type": "string"
                  },
                  "next": {
                    "type": "string"
                  }
                }
              }
            }
          }
        },
        "tags": [
          "admin page"
        ]
      }
    },
    "/admin/logout": {
      "post": {
        "operationId": "adminLogout",
        "summary": "End the session (CSRF token required)",
        "responses": {
          "303": {
            "description": "To the login form (no session) or the next page",
            "headers": {
              "Location": {
                "schema": {
                  "type": "string"
                }
              }
            }
          },
          "403": {
            "description": "An HTML page of the admin page",
            "content": {
              "text/html": {
                "schema": {
                  "type": "string"
                }
              }
            }
          }
        },
        "security": [
          {
            "session": []
          },
          {}
        ],
        "requestBody": {
          "required": true,
          "content": {
            "application/x-www-form-urlencoded": {
              "schema": {
                "type": "object",
                "properties": {
                  "csrf": {
                    "type": "string"
                  }
                }
              }
            }
          }
        },
        "tags": [
          "admin page"
        ]
      }
    },
    "/admin/apps/{id}": {
      "get": {
        "operationId": "adminApp",
        "summary": "Admin page: an app",
        "responses": {
          "200": {
            "description": "An HTML page of the admin page",
            "content": {
              "text/html": {
                "schema": {
                  "type": "string"
                }
              }
            }
          },
          "303": {
            "description": "To the login form (no session) or the next page",
            "headers": {
              "Location": {
                "schema": {
                  "type": "string"
                }
              }
            }
          },
          "404": {
            "description": "An HTML page of the admin page",
            "content": {
              "text/html": {
                "schema": {
                  "type": "string"
                }
              }
            }
          }
        },
        "security": [
          {
            "session": []
          },
          {}
        ],
        "parameters": [
          {
            "name": "id",
            "in": "path",
            "required": true,
            "schema": {
              "type": "string"
            }
          },
          {
            "name": "device",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string"
            },
            "description": ""
          }
        ],
        "tags": [
          "admin page"
        ]
      }
    },
    "/admin/validate": {
      "get": {
        "operationId": "adminValidateForm",
        "summary": "Admin page: validate form",
        "responses": {
          "200": {
            "description": "An HTML page of the admin page",
            "content": {
              "text/html": {
                "schema": {
                  "type": "string"
                }
              }
            }
          },
          "303": {
            "description": "To the login form (no session) or the next page",
            "headers": {
              "Location": {
                "schema": {
                  "type": "string"
                }
              }
            }
          }
        },
        "security": [
          {
            "session": []
          },
          {}
        ],
        "parameters": [
          {
            "name": "app",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string"
            },
            "description": ""
          }
        ],
        "tags": [
          "admin page"
        ]
      },
      "post": {
        "operationId": "adminValidate",
        "summary": "Admin page: validate an upload (CSRF token required)",
        "responses": {
          "200": {
            "description": "An HTML page of the admin page",
            "content": {
              "text/html": {
                "schema": {
                  "type": "string"
                }
              }
            }
          },
          "303": {
            "description": "To the login form (no session) or the next page",
            "headers": {
              "Location": {
                "schema": {
                  "type": "string"
                }
              }
            }
          },
          "400": {
            "description": "An HTML page of the admin page",
            "content": {
              "text/html": {
                "schema": {
                  "type": "string"
                }
              }
            }
          },
          "403": {
            "description": "An HTML page of the admin page",
            "content": {
              "text/html": {
                "schema": {
                  "type": "string"
                }
              }
            }
          },
          "413": {
            "description": "An HTML page of the admin page",
            "content": {
              "text/html": {
                "schema": {
                  "type": "string"
                }
              }
            }
          }
        },
        "security": [
          {
            "session": []
          },
          {}
        ],
        "requestBody": {
          "required": true,
          "content": {
            "multipart/form-data": {
              "schema": {
                "type": "object",
                "properties": {
                  "csrf": {
                    "type": "string"
                  },
                  "app": {
                    "type": "string"
                  },
                  "plist": {
                    "type": "string"
                  },
                  "file": {
                    "type": "string",
                    "format": "binary"
                  }
                }
              }
            }
          }
        },
        "tags": [
          "admin page"
        ]
      }
    },
    "/admin/update": {
      "get": {
        "operationId": "adminUpdate",
        "summary": "Admin page: update what-if",
        "responses": {
          "200": {
            "description": "An HTML page of the admin page",
            "content": {
              "text/html": {
                "schema": {
                  "type": "string"
                }
              }
            }
          },
          "303": {
            "description": "To the login form (no session) or the next page",
            "headers": {
              "Location": {
                "schema": {
                  "type": "string"
                }
              }
            }
          }
        },
        "security": [
          {
            "session": []
          },
          {}
        ],
        "parameters": [
          {
            "name": "app",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string"
            },
            "description": ""
          },
          {
            "name": "version",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string"
            },
            "description": ""
          },
          {
            "name": "build",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string"
            },
            "description": ""
          },
          {
            "name": "platform",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string"
            },
            "description": ""
          },
          {
            "name": "osVersion",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string"
            },
            "description": ""
          },
          {
            "name": "deviceModel",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string"
            },
            "description": ""
          },
          {
            "name": "deviceId",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string"
            },
            "description": ""
          },
          {
            "name": "channel",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string"
            },
            "description": ""
          },
          {
            "name": "locale",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string"
            },
            "description": ""
          },
          {
            "name": "timeZone",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string"
            },
            "description": ""
          },
          {
            "name": "now",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string"
            },
            "description": ""
          },
          {
            "name": "deferralsUsed",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string"
            },
            "description": ""
          },
          {
            "name": "enrolledAt",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string"
            },
            "description": ""
          }
        ],
        "tags": [
          "admin page"
        ]
      }
    },
    "/admin/policy": {
      "get": {
        "operationId": "adminPolicy",
        "summary": "Admin page: policy what-if",
        "responses": {
          "200": {
            "description": "An HTML page of the admin page",
            "content": {
              "text/html": {
                "schema": {
                  "type": "string"
                }
              }
            }
          },
          "303": {
            "description": "To the login form (no session) or the next page",
            "headers": {
              "Location": {
                "schema": {
                  "type": "string"
                }
              }
            }
          }
        },
        "security": [
          {
            "session": []
          },
          {}
        ],
        "parameters": [
          {
            "name": "type",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string"
            },
            "description": ""
          },
          {
            "name": "arg",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string"
            },
            "description": ""
          },
          {
            "name": "at",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string"
            },
            "description": ""
          },
          {
            "name": "hidden",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string"
            },
            "description": ""
          }
        ],
        "tags": [
          "admin page"
        ]
      }
    },
    "/admin/fleet": {
      "get": {
        "operationId": "adminFleet",
        "summary": "Admin page: fleet",
        "responses": {
          "200": {
            "description": "An HTML page of the admin page",
            "content": {
              "text/html": {
                "schema": {
                  "type": "string"
                }
              }
            }
          },
          "303": {
            "description": "To the login form (no session) or the next page",
            "headers": {
              "Location": {
                "schema": {
                  "type": "string"
                }
              }
            }
          },
          "400": {
            "description": "An HTML page of the admin page",
            "content": {
              "text/html": {
                "schema": {
                  "type": "string"
                }
              }
            }
          },
          "404": {
            "description": "An HTML page of the admin page",
            "content": {
              "text/html": {
                "schema": {
                  "type": "string"
                }
              }
            }
          }
        },
        "security": [
          {
            "session": []
          },
          {}
        ],
        "parameters": [
          {
            "name": "app",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string"
            },
            "description": ""
          },
          {
            "name": "status",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string"
            },
            "description": ""
          },
          {
            "name": "decision",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string"
            },
            "description": ""
          },
          {
            "name": "page",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string"
            },
            "description": ""
          }
        ],
        "tags": [
          "admin page"
        ]
      }
    },
    "/admin/fleet/devices/{id}": {
      "get": {
        "operationId": "adminDevice",
        "summary": "Admin page: a device",
        "responses": {
          "200": {
            "description": "An HTML page of the admin page",
            "content": {
              "text/html": {
                "schema": {
                  "type": "string"
                }
              }
            }
          },
          "303": {
            "description": "To the login form (no session) or the next page",
            "headers": {
              "Location": {
                "schema": {
                  "type": "string"
                }
              }
            }
          },
          "404": {
            "description": "An HTML page of the admin page",
            "content": {
              "text/html": {
                "schema": {
                  "type": "string"
                }
              }
            }
          },
          "503": {
            "description": "An HTML page of the admin page",
            "content": {
              "text/html": {
                "schema": {
                  "type": "string"
                }
              }
            }
          }
        },
        "security": [
          {
            "session": []
          },
          {}
        ],
        "parameters": [
          {
            "name": "id",
            "in": "path",
            "required": true,
            "schema": {
              "type": "string"
            }
          }
        ],
        "tags": [
          "admin page"
        ]
      }
    },
    "/admin/history": {
      "get": {
        "operationId": "adminHistory",
        "summary": "Admin page: catalog generations",
        "responses": {
          "200": {
            "description": "An HTML page of the admin page",
            "content": {
              "text/html": {
                "schema": {
                  "type": "string"
                }
              }
            }
          },
          "303": {
            "description": "To the login form (no session) or the next page",
            "headers": {
              "Location": {
                "schema": {
                  "type": "string"
                }
              }
            }
          },
          "404": {
            "description": "An HTML page of the admin page",
            "content": {
              "text/html": {
                "schema": {
                  "type": "string"
                }
              }
            }
          }
        },
        "security": [
          {
            "session": []
          },
          {}
        ],
        "tags": [
          "admin page"
        ]
      }
    },
    "/admin/history/{number}": {
      "get": {
        "operationId": "adminGeneration",
        "summary": "Admin page: a generation and its diff",
        "responses": {
          "200": {
            "description": "An HTML page of the admin page",
            "content": {
              "text/html": {
                "schema": {
                  "type": "string"
                }
              }
            }
          },
          "303": {
            "description": "To the login form (no session) or the next page",
            "headers": {
              "Location": {
                "schema": {
                  "type": "string"
                }
              }
            }
          },
          "404": {
            "description": "An HTML page of the admin page",
            "content": {
              "text/html": {
                "schema": {
                  "type": "string"
                }
              }
            }
          },
          "503": {
            "description": "An HTML page of the admin page",
            "content": {
              "text/html": {
                "schema": {
                  "type": "string"
                }
              }
            }
          }
        },
        "security": [
          {
            "session": []
          },
          {}
        ],
        "parameters": [
          {
            "name": "number",
            "in": "path",
            "required": true,
            "schema": {
              "type": "integer"
            }
          }
        ],
        "tags": [
          "admin page"
        ]
      }
    },
    "/admin/history/{number}/rollback": {
      "get": {
        "operationId": "adminRollbackConfirm",
        "summary": "Admin page: confirm a rollback",
        "responses": {
          "200": {
            "description": "An HTML page of the admin page",
            "content": {
              "text/html": {
                "schema": {
                  "type": "string"
                }
              }
            }
          },
          "303": {
            "description": "To the login form (no session) or the next page",
            "headers": {
              "Location": {
                "schema": {
                  "type": "string"
                }
              }
            }
          },
          "404": {
            "description": "An HTML page of the admin page",
            "content": {
              "text/html": {
                "schema": {
                  "type": "string"
                }
              }
            }
          },
          "503": {
            "description": "An HTML page of the admin page",
            "content": {
              "text/html": {
                "schema": {
                  "type": "string"
                }
              }
            }
          }
        },
        "security": [
          {
            "session": []
          },
          {}
        ],
        "parameters": [
          {
            "name": "number",
            "in": "path",
            "required": true,
            "schema": {
              "type": "integer"
            }
          }
        ],
        "tags": [
          "admin page"
        ]
      },
      "post": {
        "operationId": "adminRollback",
        "summary": "Admin page: roll back (CSRF token required)",
        "responses": {
          "200": {
            "description": "An HTML page of the admin page",
            "content": {
              "text/html": {
                "schema": {
                  "type": "string"
                }
              }
            }
          },
          "303": {
            "description": "To the login form (no session) or the next page",
            "headers": {
              "Location": {
                "schema": {
                  "type": "string"
                }
              }
            }
          },
          "403": {
            "description": "An HTML page of the admin page",
            "content": {
              "text/html": {
                "schema": {
                  "type": "string"
                }
              }
            }
          },
          "404": {
            "description": "An HTML page of the admin page",
            "content": {
              "text/html": {
                "schema": {
                  "type": "string"
                }
              }
            }
          },
          "422": {
            "description": "An HTML page of the admin page",
            "content": {
              "text/html": {
                "schema": {
                  "type": "string"
                }
              }
            }
          },
          "503": {
            "description": "An HTML page of the admin page",
            "content": {
              "text/html": {
                "schema": {
                  "type": "string"
                }
              }
            }
          }
        },
        "security": [
          {
            "session": []
          },
          {}
        ],
        "parameters": [
          {
            "name": "number",
            "in": "path",
            "required": true,
            "schema": {
              "type": "integer"
            }
          }
        ],
        "requestBody": {
          "required": true,
          "content": {
            "application/x-www-form-urlencoded": {
              "schema": {
                "type": "object",
                "properties": {
                  "csrf": {
                    "type": "string"
                  },
                  "message": {
                    "type": "string"
                  }
                }
              }
            }
          }
        },
        "tags": [
          "admin page"
        ]
      }
    }
  },
  "components": {
    "securitySchemes": {
      "bearer": {
        "type": "http",
        "scheme": "bearer",
        "description": "A token of the catalog's tokens.plist (admin or device scope). A catalog without tokens.plist is development mode: no token needed."
      },
      "session": {
        "type": "apiKey",
        "in": "cookie",
        "name": "mdmconf_session",
        "description": "The admin page's session, from /admin/login"
      }
    },
    "responses": {
      "E400": {
        "description": "Malformed request",
        "content": {
          "application/json": {
            "schema": {
              "$ref": "#/components/schemas/Error"
            }
          }
        }
      },
      "E401": {
        "description": "No or wrong bearer token (WWW-Authenticate)",
        "content": {
          "application/json": {
            "schema": {
              "$ref": "#/components/schemas/Error"
            }
          }
        }
      },
      "E403": {
        "description": "The token may not do this",
        "content": {
          "application/json": {
            "schema": {
              "$ref": "#/components/schemas/Error"
            }
          }
        }
      },
      "E404": {
        "description": "No such app, device, route, or the fleet is off",
        "content": {
          "application/json": {
            "schema": {
              "$ref": "#/components/schemas/Error"
            }
          }
        }
      },
      "E406": {
        "description": "No acceptable representation",
        "content": {
          "application/json": {
            "schema": {
              "$ref": "#/components/schemas/Error"
            }
          }
        }
      },
      "E413": {
        "description": "Body over maxBodySize",
        "content": {
          "application/json": {
            "schema": {
              "$ref": "#/components/schemas/Error"
            }
          }
        }
      },
      "E422": {
        "description": "Understood but invalid",
        "content": {
          "application/json": {
            "schema": {
              "$ref": "#/components/schemas/Error"
            }
          }
        }
      },
      "E503": {
        "description": "The store cannot take or answer this now (Retry-After)",
        "content": {
          "application/json": {
            "schema": {
              "$ref": "#/components/schemas/Error"
            }
          }
        }
      }
    },
    "schemas": {
      "Error": {
        "type": "object",
        "required": [
          "error"
        ],
        "properties": {
          "error": {
            "type": "object",
            "required": [
              "code",
              "mc",
              "message",
              "diagnostics"
            ],
            "properties": {
              "code": {
                "type": "string"
              },
              "mc": {
                "type": "string",
                "pattern": "^MC[0-9]{4}$"
              },
              "message": {
                "type": "string"
              },
              "diagnostics": {
                "type": "array",
                "items": {
                  "$ref": "#/components/schemas/Diagnostic"
                }
              },
              "reasons": {
                "type": "array",
                "items": {
                  "type": "object",
                  "required": [
                    "field",
                    "code"
                  ],
                  "properties": {
                    "field": {
                      "type": "string"
                    },
                    "code": {
                      "type": "string"
                    }
                  }
                }
              }
            }
          }
        }
      },
      "Diagnostic": {
        "type": "object",
        "required": [
          "severity",
          "code",
          "name",
          "message"
        ],
        "properties": {
          "severity": {
            "enum": [
              "error",
              "warning",
              "info"
            ]
          },
          "code": {
            "type": "string",
            "pattern": "^MC[0-9]{4}$"
          },
          "name": {
            "type": "string"
          },
          "message": {
            "type": "string"
          },
          "file": {
            "type": [
              "string",
              "null"
            ]
          },
          "line": {
            "type": [
              "integer",
              "null"
            ]
          },
          "column": {
            "type": [
              "integer",
              "null"
            ]
          },
          "offset": {
            "type": [
              "integer",
              "null"
            ]
          },
          "keyPath": {
            "type": [
              "string",
              "null"
            ]
          },
          "hint": {
            "type": [
              "string",
              "null"
            ]
          },
          "notes": {
            "type": "array"
          }
        }
      },
      "Reason": {
        "type": "object",
        "required": [
          "policy",
          "code"
        ],
        "properties": {
          "policy": {
            "type": [
              "string",
              "null"
            ]
          },
          "code": {
            "type": "string"
          }
        }
      },
      "Decision": {
        "type": "object",
        "required": [
          "decision",
          "exitCode",
          "policy",
          "targetVersion",
          "deadline",
          "urgency",
          "deferralsRemaining",
          "message",
          "updateUrl",
          "reasons",
          "skipped",
          "evaluatedAt",
          "trace"
        ],
        "properties": {
          "decision": {
            "enum": [
              "ok",
              "recommended",
              "required",
              "unsupported",
              "error"
            ]
          },
          "exitCode": {
            "type": "integer"
          },
          "policy": {
            "type": [
              "string",
              "null"
            ]
          },
          "targetVersion": {
            "type": [
              "string",
              "null"
            ]
          },
          "deadline": {
            "type": [
              "string",
              "null"
            ]
          },
          "urgency": {
            "enum": [
              "none",
              "low",
              "initial",
              "approaching",
              "imminent",
              "critical"
            ]
          },
          "deferralsRemaining": {
            "type": [
              "integer",
              "null"
            ]
          },
          "message": {
            "anyOf": [
              {
                "type": "null"
              },
              {
                "type": "object",
                "required": [
                  "locale"
                ],
                "properties": {
                  "locale": {
                    "type": "string"
                  },
                  "title": {
                    "type": [
                      "string",
                      "null"
                    ]
                  },
                  "body": {
                    "type": [
                      "string",
                      "null"
                    ]
                  }
                }
              }
            ]
          },
          "updateUrl": {
            "type": [
              "string",
              "null"
            ]
          },
          "reasons": {
            "type": "array",
            "items": {
              "$ref": "#/components/schemas/Reason"
            }
          },
          "skipped": {
            "type": "array",
            "items": {
              "$ref": "#/components/schemas/Reason"
            }
          },
          "evaluatedAt": {
            "type": "string"
          },
          "trace": {
            "anyOf": [
              {
                "type": "null"
              },
              {
                "type": "array",
                "items": {
                  "type": "object"
                }
              }
            ]
          }
        }
      },
      "UpdateRequest": {
        "type": "object",
        "required": [
          "app",
          "version",
          "platform"
        ],
        "properties": {
          "app": {
            "type": "string",
            "description": "bundle id"
          },
          "version": {
            "type": "string",
            "example": "2.3.1"
          },
          "build": {
            "type": "string"
          },
          "platform": {
            "type": "string",
            "example": "ios"
          },
          "osVersion": {
            "type": "string",
            "example": "17.4"
          },
          "deviceModel": {
            "type": "string"
          },
          "deviceId": {
            "type": "string"
          },
          "channel": {
            "type": "string"
          },
          "locale": {
            "type": "string"
          },
          "timeZone": {
            "type": "string",
            "example": "Europe/Berlin"
          },
          "now": {
            "type": "string",
            "description": "RFC 3339"
          },
          "deferralsUsed": {
            "type": "integer",
            "minimum": 0
          },
          "enrolledAt": {
            "type": "string"
          }
        }
      },
      "CheckIn": {
        "type": "object",
        "required": [
          "platform",
          "apps"
        ],
        "properties": {
          "device": {
            "type": "string",
            "description": "required with an admin token or in development mode; a device token's own device otherwise"
          },
          "at": {
            "type": "string"
          },
          "platform": {
            "type": "string"
          },
          "osVersion": {
            "type": "string"
          },
          "deviceModel": {
            "type": "string"
          },
          "locale": {
            "type": "string"
          },
          "timeZone": {
            "type": "string"
          },
          "enrolledAt": {
            "type": "string"
          },
          "apps": {
            "type": "array",
            "maxItems": 100,
            "items": {
              "type": "object",
              "required": [
                "app",
                "version"
              ],
              "properties": {
                "app": {
                  "type": "string"
                },
                "version": {
                  "type": "string"
                },
                "build": {
                  "type": "string"
                },
                "channel": {
                  "type": "string"
                },
                "configETag": {
                  "type": "string"
                },
                "configError": {
                  "type": "string",
                  "maxLength": 4096
                },
                "deferralsUsed": {
                  "type": "integer",
                  "minimum": 0
                }
              }
            }
          }
        }
      },
      "CheckInAnswer": {
        "type": "object",
        "required": [
          "device",
          "receivedAt",
          "catalogGeneration",
          "apps"
        ],
        "properties": {
          "device": {
            "type": "string"
          },
          "receivedAt": {
            "type": "string"
          },
          "catalogGeneration": {
            "type": "integer"
          },
          "apps": {
            "type": "array",
            "items": {
              "type": "object",
              "required": [
                "app",
                "config",
                "update"
              ],
              "properties": {
                "app": {
                  "type": "string"
                },
                "config": {
                  "type": "object",
                  "required": [
                    "status"
                  ],
                  "properties": {
                    "status": {
                      "enum": [
                        "current",
                        "stale",
                        "none"
                      ]
                    },
                    "etag": {
                      "type": [
                        "string",
                        "null"
                      ]
                    }
                  }
                },
                "update": {
                  "anyOf": [
                    {
                      "type": "null"
                    },
                    {
                      "$ref": "#/components/schemas/Decision"
                    }
                  ]
                }
              }
            }
          }
        }
      },
      "Device": {
        "type": "object",
        "required": [
          "device",
          "compliant",
          "seen",
          "why",
          "apps"
        ],
        "properties": {
          "device": {
            "type": "string"
          },
          "compliant": {
            "type": "boolean"
          },
          "seen": {
            "enum": [
              "active",
              "silent",
              "never"
            ]
          },
          "lastCheckin": {
            "type": [
              "string",
              "null"
            ]
          },
          "platform": {
            "type": [
              "string",
              "null"
            ]
          },
          "osVersion": {
            "type": [
              "string",
              "null"
            ]
          },
          "deviceModel": {
            "type": [
              "string",
              "null"
            ]
          },
          "replica": {
            "type": [
              "string",
              "null"
            ]
          },
          "why": {
            "type": "array",
            "items": {
              "type": "string"
            }
          },
          "apps": {
            "type": "array",
            "items": {
              "type": "object",
              "required": [
                "app",
                "compliant",
                "managed",
                "update",
                "config"
              ],
              "properties": {
                "app": {
                  "type": "string"
                },
                "version": {
                  "type": [
                    "string",
                    "null"
                  ]
                },
                "build": {
                  "type": [
                    "string",
                    "null"
                  ]
                },
                "compliant": {
                  "type": "boolean"
                },
                "managed": {
                  "type": "boolean"
                },
                "update": {
                  "anyOf": [
                    {
                      "type": "null"
                    },
                    {
                      "$ref": "#/components/schemas/Decision"
                    }
                  ]
                },
                "config": {
                  "type": "object",
                  "required": [
                    "status"
                  ],
                  "properties": {
                    "status": {
                      "enum": [
                        "current",
                        "stale",
                        "error",
                        "unknown",
                        "none"
                      ]
                    }
                  }
                }
              }
            }
          }
        }
      },
      "FleetSummary": {
        "type": "object",
        "required": [
          "generatedAt",
          "catalogGeneration",
          "devices",
          "compliant",
          "noncompliant",
          "seen",
          "apps"
        ],
        "properties": {
          "generatedAt": {
            "type": "string"
          },
          "catalogGeneration": {
            "type": [
              "integer",
              "null"
            ]
          },
          "app": {
            "type": [
              "string",
              "null"
            ]
          },
          "devices": {
            "type": "integer"
          },
          "compliant": {
            "type": "integer"
          },
          "noncompliant": {
            "type": "integer"
          },
          "seen": {
            "type": "object",
            "additionalProperties": {
              "type": "integer"
            }
          },
          "apps": {
            "type": "array",
            "items": {
              "type": "object",
              "required": [
                "app",
                "devices",
                "compliant",
                "decisions",
                "config",
                "versions"
              ],
              "properties": {
                "app": {
                  "type": "string"
                },
                "devices": {
                  "type": "integer"
                },
                "compliant": {
                  "type": "integer"
                },
                "decisions": {
                  "type": "object",
                  "additionalProperties": {
                    "type": "integer"
                  }
                },
                "config": {
                  "type": "object",
                  "additionalProperties": {
                    "type": "integer"
                  }
                },
                "versions": {
                  "type": "object",
                  "additionalProperties": {
                    "type": "integer"
                  }
                }
              }
            }
          }
        }
      },
      "FleetTrend": {
        "type": "object",
        "required": [
          "today",
          "days",
          "apps"
        ],
        "properties": {
          "today": {
            "type": "string"
          },
          "days": {
            "type": "integer"
          },
          "apps": {
            "type": "array",
            "items": {
              "type": "object",
              "required": [
                "app",
                "days"
              ],
              "properties": {
                "app": {
                  "type": "string"
                },
                "days": {
                  "type": "array",
                  "items": {
                    "type": "object",
                    "required": [
                      "day",
                      "devices",
                      "compliant",
                      "decisions",
                      "config"
                    ],
                    "properties": {
                      "day": {
                        "type": "string"
                      },
                      "devices": {
                        "type": "integer"
                      },
                      "compliant": {
                        "type": "integer"
                      },
                      "decisions": {
                        "type": "object",
                        "additionalProperties": {
                          "type": "integer"
                        }
                      },
                      "config": {
                        "type": "object",
                        "additionalProperties": {
                          "type": "integer"
                        }
                      }
                    }
                  }
                }
              }
            }
          }
        }
      },
      "ValidationReport": {
        "type": "object",
        "required": [
          "files",
          "summary"
        ],
        "properties": {
          "files": {
            "type": "array",
            "items": {
              "type": "object",
              "required": [
                "path",
                "valid",
                "diagnostics"
              ],
              "properties": {
                "path": {
                  "type": "string"
                },
                "schema": {
                  "anyOf": [
                    {
                      "type": "null"
                    },
                    {
                      "type": "object"
                    }
                  ]
                },
                "shape": {
                  "type": [
                    "string",
                    "null"
                  ]
                },
                "valid": {
                  "type": "boolean"
                },
                "diagnostics": {
                  "type": "array",
                  "items": {
                    "$ref": "#/components/schemas/Diagnostic"
                  }
                }
              }
            }
          },
          "summary": {
            "type": "object",
            "required": [
              "files",
              "valid",
              "errors",
              "warnings",
              "infos"
            ],
            "properties": {
              "files": {
                "type": "integer"
              },
              "valid": {
                "type": "integer"
              },
              "errors": {
                "type": "integer"
              },
              "warnings": {
                "type": "integer"
              },
              "infos": {
                "type": "integer"
              }
            }
          }
        }
      },
      "PolicyAnswer": {
        "type": "object",
        "required": [
          "query",
          "decision",
          "reasons"
        ],
        "properties": {
          "query": {
            "type": "object",
            "required": [
              "type"
            ],
            "properties": {
              "type": {
                "type": "string"
              }
            }
          },
          "decision": {
            "type": [
              "string",
              "null"
            ]
          },
          "reasons": {
            "type": "array",
            "items": {
              "type": "object"
            }
          },
          "advisories": {
            "type": "array"
          },
          "inactive": {
            "type": "array"
          },
          "lints": {
            "type": "array"
          },
          "diagnostics": {
            "type": "array"
          },
          "profiles": {
            "type": "array"
          }
        }
      },
      "Schema": {
        "type": "object",
        "required": [
          "id",
          "format",
          "keys"
        ],
        "properties": {
          "id": {
            "type": "string"
          },
          "format": {
            "enum": [
              "appconfig",
              "manifest"
            ]
          },
          "title": {
            "type": [
              "string",
              "null"
            ]
          },
          "keys": {
            "type": "array",
            "items": {
              "type": "object",
              "required": [
                "name",
                "types",
                "required"
              ],
              "properties": {
                "name": {
                  "type": "string"
                },
                "types": {
                  "type": "array",
                  "items": {
                    "type": "string"
                  }
                },
                "required": {
                  "type": "boolean"
                }
              }
            }
          }
        }
      },
      "Ready": {
        "type": "object",
        "required": [
          "status",
          "catalogGeneration",
          "loadedAt",
          "apps",
          "lastReloadError"
        ],
        "properties": {
          "status": {
            "type": "string"
          },
          "catalogGeneration": {
            "type": "integer"
          },
          "loadedAt": {
            "type": "string"
          },
          "apps": {
            "type": "array",
            "items": {
              "type": "string"
            }
          },
          "lastReloadError": {
            "anyOf": [
              {
                "type": "null"
              },
              {
                "type": "object",
                "required": [
                  "at",
                  "message",
                  "diagnostics"
                ]
              }
            ]
          },
          "store": {
            "anyOf": [
              {
                "type": "null"
              },
              {
                "type": "object",
                "required": [
                  "status"
                ]
              }
            ]
          }
        }
      }
    }
  },
  "security": [
    {
      "bearer": []
    }
  ]
}
"""#
}
