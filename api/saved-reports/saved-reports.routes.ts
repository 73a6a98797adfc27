/** Saved reports of a store (docs/insight.md, "Saved reports"). */
import { defineRoutes, type RouteRequest } from '../http/route';
import { storeId } from '../http/schema-types';
import { CreateSavedReportDto, type CreateSavedReportInput } from './saved-reports.schemas';
import { SavedReportListResponse, SavedReportResponse } from './saved-reports.responses';
import { createSavedReport, deleteSavedReport, listSavedReports } from './saved-reports.service';

type Params = Record<string, string>;

export const savedReportsRoutes = defineRoutes({ tag: 'saved-reports', auth: 'merchant' }, [
  {
    operationId: 'savedReports.list',
    method: 'GET',
    path: '/saved-reports',
    summary: 'Saved reports of a store',
    description: 'All the saved reports of the store (at most 100), oldest first.',
    query: { storeId: storeId() },
    response: SavedReportListResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => listSavedReports(req.context, req.query as { storeId: string }),
  },
  {
    operationId: 'savedReports.create',
    method: 'POST',
    path: '/saved-reports',
    summary: 'Save a report definition',
    description:
      'A business intelligence report with its parameters and an optional schedule. A scheduled report emits the saved_report.due webhook each time it comes due, with the period the run covers. 409 saved_report_limit_reached past 100 per store.',
    body: CreateSavedReportDto,
    response: SavedReportResponse,
    status: 201,
    problems: [409],
    handler: (req: RouteRequest<Params, Params, CreateSavedReportInput>) => createSavedReport(req.context, req.body),
  },
  {
    operationId: 'savedReports.delete',
    method: 'DELETE',
    path: '/saved-reports/{id}',
    summary: 'Delete a saved report',
    status: 204,
    handler: async (req: RouteRequest<Params>) => {
      await deleteSavedReport(req.context, req.params.id!);
    },
  },
]);
