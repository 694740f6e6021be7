int api_version(void);
